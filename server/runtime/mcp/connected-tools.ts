/**
 * A tenant's MCP tools as the run loop and the model see them: one definition per listed tool of
 * each connected server, named `<server>__<tool>`, gated by its annotations or its admin's choice.
 * Definitions are kept while the server's catalog is unchanged, so an approval's version digest
 * and the tool's port are computed once.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Database } from "@/server/db";
import { listMcpServers, type McpServerRow } from "@/server/db/queries/mcp-servers";
import type { McpCatalog, McpListedTool } from "@/server/domain";
import { canonicalJson, type McpToolDefinition, type McpToolResult, type ToolRegistry } from "../agent";
import type { McpConnector, McpServerAddress } from "./connector";
import { approvalOf, gateOf } from "./gates";
import type { OperatorServers } from "./operator-servers";

/** How many servers' definitions a process keeps (each tenant has at most a few dozen). */
const KEPT_SERVERS = 2_000;
/** What the model is told of a tool, at most: servers write their own descriptions. */
const MAX_DESCRIPTION = 2_000;

const McpResult: z.ZodType<McpToolResult> = z.object({
  server: z.string(),
  tool: z.string(),
  isError: z.boolean(),
  text: z.string(),
  structured: z.record(z.string(), z.unknown()).optional(),
});

/** `<server>__<tool>` within OpenAI's function-name rules (letters, digits, `_`, `-`; at most 64). */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, "_")}`.slice(0, 64);
}

export interface ConnectedToolsDeps {
  db: Database;
  connector: McpConnector;
  /** Where a stored server is, with its headers opened. */
  addressOf(row: McpServerRow): McpServerAddress;
  operator: OperatorServers;
}

/** One server's catalog as definitions are made from it; `stamp` changes whenever they must be made again. */
interface ServerCatalog {
  id: string;
  name: string;
  catalog: McpCatalog;
  stamp: string;
  address(): McpServerAddress;
}

export function connectedTools(deps: ConnectedToolsDeps): (tenantId: string) => Promise<ToolRegistry> {
  const kept = new Map<string, { stamp: string; tools: McpToolDefinition[] }>();
  const definitionsOf = (server: ServerCatalog): McpToolDefinition[] => {
    const known = kept.get(server.id);
    if (known?.stamp === server.stamp) return known.tools;
    const address = server.address();
    const tools = server.catalog.tools.map((tool) => definitionOf(server, tool, address, deps.connector));
    if (kept.size >= KEPT_SERVERS) kept.delete(kept.keys().next().value!);
    kept.set(server.id, { stamp: server.stamp, tools });
    return tools;
  };
  return async (tenantId) => {
    const registry = new Map<string, McpToolDefinition>();
    for (const server of await catalogsOf(deps, tenantId)) {
      // Two tools whose names read alike once made valid: the first listed keeps the name.
      for (const definition of definitionsOf(server)) if (!registry.has(definition.name)) registry.set(definition.name, definition);
    }
    return registry;
  };
}

/** The tenant's servers (the operator's first: their names are taken for every tenant), with their catalogs. */
async function catalogsOf(deps: ConnectedToolsDeps, tenantId: string): Promise<ServerCatalog[]> {
  const operator = await Promise.all(
    deps.operator.visibleTo(tenantId).map(async (server): Promise<ServerCatalog> => {
      const { tools } = await deps.operator.tools(server);
      const catalog = { tools, gates: {} };
      return {
        id: deps.operator.address(server).id,
        name: server.name,
        catalog,
        stamp: JSON.stringify(tools),
        address: () => deps.operator.address(server),
      };
    }),
  );
  const stored = (await listMcpServers(deps.db, tenantId)).map((row): ServerCatalog => ({
    id: row.id,
    name: row.name,
    catalog: row.catalog,
    stamp: `${row.url}\u0000${row.headersSealed ?? ""}\u0000${JSON.stringify(row.catalog)}`,
    address: () => deps.addressOf(row),
  }));
  return [...operator, ...stored];
}

function definitionOf(row: ServerCatalog, tool: McpListedTool, address: McpServerAddress, connector: McpConnector): McpToolDefinition {
  const choice = gateOf(tool, row.catalog.gates[tool.name]);
  const approval = approvalOf(row.name, tool, choice);
  const description = tool.description ?? tool.title ?? tool.name;
  return {
    kind: "mcp",
    name: mcpToolName(row.name, tool.name),
    title: `${row.name}: ${tool.annotations.title ?? tool.title ?? tool.name}`,
    description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description,
    input: argumentsSchema(tool.inputSchema),
    inputSchema: tool.inputSchema,
    output: McpResult,
    version: `mcp1:${createHash("sha256")
      .update(
        canonicalJson({
          server: row.name,
          tool: tool.name,
          input: tool.inputSchema,
          gate: { gate: choice.gate, quorum: choice.quorum ?? 1 },
        }),
      )
      .digest("hex")}`,
    ...(approval ? { approval } : {}),
    mcp: { serverId: row.id, server: row.name, tool: tool.name },
    port: connector.tool(address, tool.name),
  };
}

/** The server's input schema, read by zod; one zod cannot read still takes only an object. */
function argumentsSchema(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const object = z.record(z.string(), z.unknown());
  try {
    return z.fromJSONSchema(schema).pipe(object);
  } catch {
    return object;
  }
}
