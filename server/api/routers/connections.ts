import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../trpc";

const owner = (identity: { tenantId: string; userId: string }) => ({ tenantId: identity.tenantId, userId: identity.userId });

export const connectionsRouter = createTRPCRouter({
  /** The caller's connected providers (OAuth grants, API keys): names, scopes and dates, never secrets. */
  list: protectedProcedure.query(({ ctx }) => ctx.harbor.oauth.connections(owner(ctx.identity))),
  /** Forgets the caller's credential for a provider; an OAuth grant is also revoked at the provider. */
  disconnect: protectedProcedure
    .input(z.strictObject({ provider: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => ctx.harbor.oauth.disconnect(owner(ctx.identity), input.provider)),
});
