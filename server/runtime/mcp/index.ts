/**
 * The face of runtime/mcp: the MCP servers a tenant connects, and their tools as runs see them.
 * See README.md.
 */
export { type McpConnector, type McpListing, type McpServerAddress, type McpTransportAddress, type OperatorMcpServer } from "./connector";
export { operatorServers, type OperatorServers } from "./operator-servers";
export { connectedTools, mcpToolName } from "./connected-tools";
export {
  addressOf,
  MAX_MCP_SERVERS_PER_TENANT,
  mcpHeadersKey,
  mcpServerService,
  type McpServerService,
  type McpServerView,
  type McpSettings,
  type McpSuggestion,
  type McpToolView,
} from "./servers";
