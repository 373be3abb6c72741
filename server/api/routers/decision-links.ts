import { z } from "zod";
import { text } from "@/server/edge/inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";

/** A decision link's token, as its URL carries it (`/decide/<token>`). */
const token = z.string().min(1).max(4096);

/** Signed one-time decision links, used by the approver they were minted for (signed in). */
export const decisionLinksRouter = createTRPCRouter({
  /** What the link offers and where its request stands; never decides (a mail scanner may open it). */
  get: protectedProcedure
    .input(z.strictObject({ token }))
    .query(({ ctx, input }) => ctx.harbor.runtime.decisionLinks.inspect(ctx.identity, input.token)),

  /** Decides with the link, once, through the coordinator (`via: "link"`): `{ outcome: approved | rejected | voted }`. */
  decide: protectedProcedure.input(z.strictObject({ token, reason: text(500).optional() })).mutation(async ({ ctx, input }) => {
    const decided = await ctx.harbor.runtime.decisionLinks.decide(ctx.identity, input.token, input.reason || undefined);
    ctx.log.info({ outcome: decided.outcome }, "decided with a decision link");
    return decided;
  }),
});
