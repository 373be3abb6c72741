/**
 * What the runtime needs of an MCP client (implemented with the official SDK in `server/mcp`):
 * list a server's tools, and call one of them. Servers are addressed by what Harbor stored for them.
 */
import type { McpListedTool } from "@/server/domain";
import type { McpToolPort } from "../agent";

/** Where a server is and what to send it on every request. */
export interface McpServerAddress {
  id: string;
  /** Its name in the tenant (tools are `<name>__<tool>`). */
  name: string;
  url: URL;
  /** Static headers an admin configured (an API key): opened from their sealed form only here. */
  headers: Readonly<Record<string, string>>;
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
