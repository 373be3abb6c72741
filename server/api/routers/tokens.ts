import { z } from "zod";
import { id, text } from "../inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const tokensRouter = createTRPCRouter({
  /** The only answer that ever contains the token string. */
  create: protectedProcedure.input(z.object({ name: text(100).pipe(z.string().min(1)) }).strict()).mutation(async ({ ctx, input }) => {
    const { token, info } = await ctx.harbor.runtime.accounts.createToken(ctx.identity, input.name);
    ctx.log.info({ tokenId: info.id }, "api token created");
    return { ...info, token };
  }),

  list: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.accounts.listTokens(ctx.identity)),

  revoke: protectedProcedure.input(z.object({ tokenId: id }).strict()).mutation(async ({ ctx, input }) => {
    await ctx.harbor.runtime.accounts.revokeToken(ctx.identity, input.tokenId);
    return { revoked: true as const };
  }),
});
