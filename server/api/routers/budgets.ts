import { z } from "zod";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../trpc";

/** A limit in tokens: 0 is none; null follows the deployment's setting. */
const tokens = z.number().int().min(0).max(1e15).nullable();

/** Model token budgets of the caller's tenant. */
export const budgetsRouter = createTRPCRouter({
  /** The limits (own, defaults, in force) and usage today and this month: every user's for admins, one's own for members. */
  get: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.budgets.view(ctx.identity)),

  /** Sets the tenant's own limits; admins only, audited. */
  set: adminProcedure
    .input(z.object({ tenantDaily: tokens, tenantMonthly: tokens, userDaily: tokens, userMonthly: tokens }).strict())
    .mutation(async ({ ctx, input }) => {
      await ctx.harbor.runtime.budgets.set(ctx.identity, input);
      return ctx.harbor.runtime.budgets.view(ctx.identity);
    }),
});
