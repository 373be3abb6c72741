import { createTRPCRouter, protectedProcedure } from "../trpc";

export const outboxRouter = createTRPCRouter({
  /** The caller's sent emails and transfers, newest first. */
  list: protectedProcedure.query(({ ctx }) => ctx.harbor.outbox.list(ctx.identity)),
});
