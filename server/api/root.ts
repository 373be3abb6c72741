import { interactionsRouter } from "./routers/interactions";
import { meRouter } from "./routers/me";
import { outboxRouter } from "./routers/outbox";
import { runsRouter } from "./routers/runs";
import { threadsRouter } from "./routers/threads";
import { tokensRouter } from "./routers/tokens";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  me: meRouter,
  interactions: interactionsRouter,
  outbox: outboxRouter,
  runs: runsRouter,
  threads: threadsRouter,
  tokens: tokensRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
