/**
 * MCP servers a tenant connects: the gates their tools may get, and what Harbor keeps of their
 * tools. Depends on nothing.
 */

/** Who lets an MCP tool's call run: nobody needs to (`none`), its caller, or approvers other than the caller. */
export const MCP_GATES = ["none", "owner", "approvers"] as const;
export type McpGate = (typeof MCP_GATES)[number];

/** What a tool says of itself (MCP's tool annotations: hints, never promises). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations: McpToolAnnotations;
}

/** An admin's choice for one tool, over the gate its annotations give it. */
export interface McpGateChoice {
  gate: McpGate;
  /** How many approvers must approve (an `approvers` gate; 1 when absent). */
  quorum?: number;
}

/** What Harbor keeps of a connected server's tools. */
export interface McpCatalog {
  tools: McpListedTool[];
  gates: Record<string, McpGateChoice>;
  /** ISO time the tools were last listed. */
  listedAt?: string;
}

/**
 * The gate a tool's annotations give it, read with MCP's own defaults (`readOnlyHint` false,
 * `destructiveHint` true when absent): read-only needs nobody; declared not destructive needs its
 * caller; anything else — destructive, or nothing said — needs an approver other than the caller.
 */
export function defaultMcpGate(annotations: McpToolAnnotations): McpGate {
  if (annotations.readOnlyHint === true) return "none";
  if (annotations.destructiveHint === false) return "owner";
  return "approvers";
}
