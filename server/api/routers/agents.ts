import { summarizeAgents } from "@/server/agents/catalog";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const agentsRouter = createTRPCRouter({
  /** The agents this server offers and their tools: titles, kinds and gates, for rendering calls. */
  list: protectedProcedure.query(async ({ ctx }) =>
    summarizeAgents(ctx.harbor.agents, await ctx.harbor.runtime.connectedTools(ctx.identity)),
  ),
});
