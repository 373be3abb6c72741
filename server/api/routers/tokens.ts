import { z } from "zod";
import { id, text } from "@/server/edge/inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";
import { MAX_TOKEN_DAYS } from "@/server/runtime";

export const tokensRouter = createTRPCRouter({
  /** The only answer that ever contains the token string; it expires after `expiresInDays` (default 90, at most 365). */
  create: protectedProcedure
    .input(
      z.object({ name: text(100).pipe(z.string().min(1)), expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS).optional() }).strict(),
    )
    .mutation(async ({ ctx, input }) => {
      const { token, info } = await ctx.harbor.runtime.accounts.createToken(ctx.identity, input.name, input.expiresInDays);
      ctx.log.info({ tokenId: info.id }, "api token created");
      return { ...info, token };
    }),

  list: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.accounts.listTokens(ctx.identity)),

  revoke: protectedProcedure.input(z.object({ tokenId: id }).strict()).mutation(async ({ ctx, input }) => {
    await ctx.harbor.runtime.accounts.revokeToken(ctx.identity, input.tokenId);
    return { revoked: true as const };
  }),
});
