/**
 * MCP servers the operator runs as local processes (stdio), configured in settings and never by a
 * tenant. Their tools are listed when first needed and kept a minute, so a run does not start a
 * process just to learn what the server offers.
 */
import type { Logger } from "pino";
import type { McpListedTool } from "@/server/domain";
import type { McpConnector, McpServerAddress, OperatorMcpServer } from "./connector";

/** How long a listing of an operator's server is trusted. */
const LISTING_MS = 60_000;

export const OPERATOR_ID_PREFIX = "stdio:";

export interface OperatorServers {
  /** The operator's servers offered to `tenantId`. */
  visibleTo(tenantId: string): OperatorMcpServer[];
  find(tenantId: string, id: string): OperatorMcpServer | undefined;
  address(server: OperatorMcpServer): McpServerAddress;
  /** The server's tools (listed at most once a minute; a server that fails to list offers none until it answers). */
  tools(server: OperatorMcpServer): Promise<{ tools: McpListedTool[]; listedAt: Date | null }>;
}

export function operatorServers(servers: readonly OperatorMcpServer[], connector: McpConnector, log: Logger): OperatorServers {
  const listed = new Map<string, { at: number; tools: McpListedTool[] }>();
  const pending = new Map<string, Promise<McpListedTool[]>>();
  const address = (server: OperatorMcpServer): McpServerAddress => ({
    id: `${OPERATOR_ID_PREFIX}${server.name}`,
    name: server.name,
    transport: { type: "stdio", command: server.command, args: server.args, env: server.env },
  });
  const list = async (server: OperatorMcpServer): Promise<McpListedTool[]> => {
    const listing = await connector.list(address(server));
    return listing.type === "tools" ? listing.tools : [];
  };
  const visibleTo = (tenantId: string) => servers.filter((s) => !s.tenants || s.tenants.includes(tenantId));
  return {
    visibleTo,
    find: (tenantId, id) => visibleTo(tenantId).find((s) => address(s).id === id),
    address,
    async tools(server) {
      const known = listed.get(server.name);
      if (known && Date.now() - known.at < LISTING_MS) return { tools: known.tools, listedAt: new Date(known.at) };
      let listing = pending.get(server.name);
      if (!listing) {
        listing = list(server).finally(() => pending.delete(server.name));
        pending.set(server.name, listing);
      }
      try {
        const tools = await listing;
        listed.set(server.name, { at: Date.now(), tools });
        return { tools, listedAt: new Date() };
      } catch (error) {
        log.warn({ err: error, server: server.name }, "an operator's MCP server could not list its tools");
        return { tools: known?.tools ?? [], listedAt: known ? new Date(known.at) : null };
      }
    },
  };
}
