import { z } from "zod";
import { id } from "@/server/edge/inputs";
import { adminProcedure, createTRPCRouter } from "../trpc";

/** Days of a retention policy: 0 keeps everything; null follows the deployment's setting. */
const days = z.number().int().min(0).max(36_500).nullable();

/** How long the caller's tenant keeps its data: admins only. */
export const retentionRouter = createTRPCRouter({
  /** The policy in force, what the next sweep deletes and when, and where the audit chain enters. */
  get: adminProcedure.query(({ ctx }) => ctx.harbor.runtime.retention.view(ctx.identity)),

  /** The tenant's users and how many conversations each has. */
  users: adminProcedure.query(({ ctx }) => ctx.harbor.runtime.retention.users(ctx.identity)),

  /** Sets the tenant's own days (null: the deployment's); audited. */
  set: adminProcedure
    .input(z.object({ conversationDays: days, auditDays: days }).strict())
    .mutation(({ ctx, input }) => ctx.harbor.runtime.retention.set(ctx.identity, input)),

  /** Erases one user's conversations now, whatever their age (those a run still holds are kept and counted); audited. */
  eraseUser: adminProcedure.input(z.object({ userId: id }).strict()).mutation(async ({ ctx, input }) => {
    const erased = await ctx.harbor.runtime.retention.eraseUser(ctx.identity, input.userId);
    ctx.log.info({ userId: input.userId, ...erased }, "a user's conversations erased");
    return erased;
  }),
});
