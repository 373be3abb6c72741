import { z } from "zod";
import { id } from "@/server/edge/inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const grantsRouter = createTRPCRouter({
  /** Live standing approvals the caller gave or may use; a tenant's admins see all of the tenant's. */
  list: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.grants.list(ctx.identity)),

  /** Ends a standing approval now: its owner, the person who gave it, or an admin of the tenant. */
  revoke: protectedProcedure
    .input(z.strictObject({ grantId: id }))
    .mutation(({ ctx, input }) => ctx.harbor.runtime.grants.revoke(ctx.identity, input.grantId)),
});
