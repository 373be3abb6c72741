/**
 * The MCP room: the servers tenants connect (and the operator's own), and their tools as runs
 * see them. Without an MCP client configured, connecting a server says so.
 */
import { HarborError } from "../errors";
import { addressOf, connectedTools, mcpHeadersKey, mcpServerService, operatorServers, type McpConnector } from "../mcp";
import type { RuntimeDeps } from "./deps";

const NO_MCP_CLIENT: McpConnector = {
  list: () => Promise.reject(new HarborError("MCP_UNAVAILABLE", "This server has no MCP client configured.")),
  tool: () => ({ call: () => Promise.reject(new HarborError("MCP_UNAVAILABLE", "This server has no MCP client configured.")) }),
};

export function composeMcp(deps: RuntimeDeps) {
  const connector = deps.mcp?.connector ?? NO_MCP_CLIENT;
  const operator = operatorServers(deps.mcp?.operatorServers ?? [], connector, deps.log);
  const key = mcpHeadersKey(deps.serverSecret);
  return {
    servers: mcpServerService(deps.db, deps.serverSecret, connector, operator, deps.mcp),
    /** A tenant's MCP tools, for the runs of agents that take them (none without an MCP client). */
    connectedTools: deps.mcp ? connectedTools({ db: deps.db, connector, addressOf: (row) => addressOf(key, row), operator }) : undefined,
  };
}

export type McpRoom = ReturnType<typeof composeMcp>;
