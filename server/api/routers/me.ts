import { createTRPCRouter, protectedProcedure } from "../trpc";

export const meRouter = createTRPCRouter({
  /** Who the caller is: handy for curl users checking their token. */
  get: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.accounts.profile(ctx.identity)),
});
