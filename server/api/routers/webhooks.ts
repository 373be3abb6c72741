import { z } from "zod";
import { id } from "@/server/edge/inputs";
import { adminProcedure, createTRPCRouter } from "../trpc";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE, WEBHOOK_EVENTS } from "@/server/runtime";

/** Outgoing webhooks of the caller's tenant: admins only. */
export const webhooksRouter = createTRPCRouter({
  /** Registers a URL for some `pause.*` events; the only answer that ever holds its signing secret (`whsec_…`). */
  create: adminProcedure
    .input(
      z
        .object({
          url: z.string().trim().min(1).max(2000).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE),
          events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.harbor.runtime.webhooks.create(ctx.identity, input);
      ctx.log.info({ webhookId: created.id, events: created.events }, "webhook created");
      return created;
    }),

  list: adminProcedure.query(({ ctx }) => ctx.harbor.runtime.webhooks.list(ctx.identity)),

  delete: adminProcedure.input(z.object({ webhookId: id }).strict()).mutation(async ({ ctx, input }) => {
    await ctx.harbor.runtime.webhooks.delete(ctx.identity, input.webhookId);
    ctx.log.info({ webhookId: input.webhookId }, "webhook deleted");
    return { deleted: true as const };
  }),

  /** The delivery log: each message's status, attempts, last answer or error and next retry, with every attempt. */
  deliveries: adminProcedure
    .input(z.object({ webhookId: id, limit: z.number().int().min(1).max(200).optional() }).strict())
    .query(({ ctx, input }) => ctx.harbor.runtime.webhooks.deliveries(ctx.identity, input.webhookId, input.limit)),
});
