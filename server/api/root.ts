import { meRouter } from "./routers/me";
import { threadsRouter } from "./routers/threads";
import { tokensRouter } from "./routers/tokens";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  me: meRouter,
  threads: threadsRouter,
  tokens: tokensRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
