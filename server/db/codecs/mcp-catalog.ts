/**
 * What Harbor knows of a connected MCP server's tools (mcp_servers.catalog): the tools as the
 * server last listed them (name, title, description, input schema, annotations) and the gate an
 * admin chose for any of them. The version is written as `v`.
 */
import { z } from "zod";
import { MCP_GATES, type McpCatalog } from "@/server/domain";
import { storedCodec } from "./codec";

const annotations = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

export const mcpCatalogSchema = z.looseObject({
  tools: z.array(
    z.looseObject({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.record(z.string(), z.unknown()),
      annotations,
    }),
  ),
  gates: z.record(z.string(), z.looseObject({ gate: z.enum(MCP_GATES), quorum: z.number().int().min(1).optional() })),
  listedAt: z.string().optional(),
}) satisfies z.ZodType<McpCatalog>;

export const mcpCatalogCodec = storedCodec<McpCatalog>({
  shape: "MCP server catalog",
  version: 1,
  schema: mcpCatalogSchema,
  upcasters: {},
  versionKey: "v",
});
