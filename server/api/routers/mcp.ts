import { z } from "zod";
import { id } from "@/server/edge/inputs";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../trpc";
import { isStorableText, MCP_GATES, UNSTORABLE_TEXT_MESSAGE } from "@/server/runtime";

const text = (max: number) => z.string().max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

/** The MCP servers of the caller's tenant: admins manage them; members see their names. */
const serversRouter = createTRPCRouter({
  /** Admins: each server's URL, header names and tool count. Members: names only. */
  list: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.mcpServers.list(ctx.identity)),

  /** Servers this deployment offers to connect in one click (the demo's calendar), not yet connected. */
  suggestions: adminProcedure.query(({ ctx }) => ctx.harbor.runtime.mcpServers.suggestions(ctx.identity)),

  /** Connects a server (its tools are listed first); header values are sealed and never returned. */
  create: adminProcedure
    .input(
      z.strictObject({
        name: z.string().trim().min(1).max(32),
        url: text(2000).pipe(z.string().trim().min(1)),
        headers: z.record(text(100), text(4096)).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.harbor.runtime.mcpServers.create(ctx.identity, input);
      ctx.log.info({ mcpServerId: created.id, name: input.name, tools: created.tools }, "MCP server connected");
      return created;
    }),

  delete: adminProcedure.input(z.strictObject({ id })).mutation(async ({ ctx, input }) => {
    await ctx.harbor.runtime.mcpServers.delete(ctx.identity, input.id);
    ctx.log.info({ mcpServerId: input.id }, "MCP server removed");
    return { deleted: true as const };
  }),

  /** The server's tools, listed again now, each with its gate (marked `stale`: the server did not answer; its last list). */
  tools: adminProcedure
    .input(z.strictObject({ id }))
    .query(({ ctx, input }) => ctx.harbor.runtime.mcpServers.tools(ctx.identity, input.id)),

  /** One tool's gate: none, owner, approvers (with a quorum), or `default` (its annotations' gate). */
  setGate: adminProcedure
    .input(
      z.strictObject({
        id,
        tool: z.string().min(1).max(128),
        gate: z.enum([...MCP_GATES, "default"]),
        quorum: z.number().int().min(1).max(10).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await ctx.harbor.runtime.mcpServers.setGate(ctx.identity, input);
      return { gate: input.gate };
    }),
});

export const mcpRouter = createTRPCRouter({ servers: serversRouter });
