/**
 * What the runtime needs of an MCP client (implemented with the official SDK in `server/mcp`):
 * list a server's tools, and call one of them. Servers are addressed by what Harbor stored for them.
 */
import type { McpListedTool } from "@/server/domain";
import type { McpToolPort } from "../agent";

/** How a server is reached: over Streamable HTTP (a tenant's), or as a local process over stdio (the operator's). */
export type McpTransportAddress =
  | {
      type: "http";
      url: URL;
      /** Static headers an admin configured (an API key): opened from their sealed form only here. */
      headers: Readonly<Record<string, string>>;
    }
  | { type: "stdio"; command: string; args: readonly string[]; env: Readonly<Record<string, string>> };

/** Where a server is and how to reach it. */
export interface McpServerAddress {
  id: string;
  /** Its name in the tenant (tools are `<name>__<tool>`). */
  name: string;
  transport: McpTransportAddress;
}

/**
 * A server the operator runs as a local process (settings, `HARBOR_MCP_STDIO_SERVERS`): never one a
 * tenant configures. Offered to the tenants named (all when none are).
 */
export interface OperatorMcpServer {
  name: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  tenants?: readonly string[];
}

/** A server's tools, or the authorization it wants before it lists them. */
export type McpListing =
  { type: "tools"; tools: McpListedTool[] } | { type: "unauthorized"; authorizationServers: string[]; scopes: string[] };

export interface McpConnector {
  /** The server's tools, listed now (every page). Fails with MCP_UNAVAILABLE or MCP_TIMEOUT. */
  list(server: McpServerAddress): Promise<McpListing>;
  /** One tool of the server, as the run loop calls it. */
  tool(server: McpServerAddress, tool: string): McpToolPort;
}
