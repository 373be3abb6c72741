import { agentsRouter } from "./routers/agents";
import { auditRouter } from "./routers/audit";
import { connectionsRouter } from "./routers/connections";
import { decisionLinksRouter } from "./routers/decision-links";
import { grantsRouter } from "./routers/grants";
import { interactionsRouter } from "./routers/interactions";
import { meRouter } from "./routers/me";
import { outboxRouter } from "./routers/outbox";
import { responsesRouter } from "./routers/responses";
import { runsRouter } from "./routers/runs";
import { threadsRouter } from "./routers/threads";
import { tokensRouter } from "./routers/tokens";
import { budgetsRouter } from "./routers/budgets";
import { retentionRouter } from "./routers/retention";
import { webhooksRouter } from "./routers/webhooks";
import { mcpRouter } from "./routers/mcp";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  me: meRouter,
  agents: agentsRouter,
  audit: auditRouter,
  connections: connectionsRouter,
  decisionLinks: decisionLinksRouter,
  grants: grantsRouter,
  interactions: interactionsRouter,
  outbox: outboxRouter,
  responses: responsesRouter,
  runs: runsRouter,
  threads: threadsRouter,
  tokens: tokensRouter,
  webhooks: webhooksRouter,
  retention: retentionRouter,
  budgets: budgetsRouter,
  mcp: mcpRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
