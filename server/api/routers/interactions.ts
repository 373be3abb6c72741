import { z } from "zod";
import { INTERACTION_KINDS, INTERACTION_STATUSES } from "@/server/domain";
import { id, text } from "@/server/edge/inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";
import { GrantRequest } from "@/server/runtime";

const byId = z.strictObject({ interactionId: id });
const decision = z.strictObject({ interactionId: id, reason: text(500).optional() });
/** An approval may also give the gate's standing approval (`grant`; see the README's "Standing approvals"). */
const approval = decision.extend({ grant: GrantRequest.optional() });

export const interactionsRouter = createTRPCRouter({
  list: protectedProcedure
    .input(
      z
        .strictObject({
          status: z.enum(INTERACTION_STATUSES).optional(),
          kind: z.enum(INTERACTION_KINDS).optional(),
          tool: id.optional(),
          requester: id.optional(),
          threadId: id.optional(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => ctx.harbor.runtime.interactions.list(ctx.identity, input ?? {})),

  get: protectedProcedure.input(byId).query(({ ctx, input }) => ctx.harbor.runtime.interactions.get(ctx.identity, input.interactionId)),

  approve: protectedProcedure
    .input(approval)
    .mutation(({ ctx, input }) =>
      ctx.harbor.runtime.interactions.decide(ctx.identity, input.interactionId, true, input.reason, input.grant),
    ),

  reject: protectedProcedure
    .input(decision)
    .mutation(({ ctx, input }) => ctx.harbor.runtime.interactions.decide(ctx.identity, input.interactionId, false, input.reason)),

  /** Exactly a `resume[]` entry; the payload is checked by the interaction's own strict schema. */
  resume: protectedProcedure
    .input(
      z.strictObject({
        interactionId: id,
        status: z.enum(["resolved", "cancelled"]),
        payload: z.unknown().optional(),
        resumeToken: z.string().max(4096).optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.harbor.runtime.interactions.resolve(ctx.identity, input)),

  /** Live changes of the caller's inbox: their own interactions, and for approvers the routed ones. */
  events: protectedProcedure.subscription(({ ctx, signal }) => ctx.harbor.runtime.interactions.watch(ctx.identity, signal)),
});
