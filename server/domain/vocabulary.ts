/**
 * Harbor's vocabulary: the closed sets every layer speaks — the Drizzle schema, the runtime, the
 * API and the components all import them from here. Depends on nothing.
 */
import type { GrantOffer } from "./grants";

export const ROLES = ["member", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const RUN_STATUSES = ["queued", "running", "paused", "completed", "failed", "cancelled", "rejected", "expired", "lost"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_RUN_STATUSES = [
  "completed",
  "failed",
  "cancelled",
  "rejected",
  "expired",
  "lost",
] as const satisfies readonly RunStatus[];
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);

/** A run in one of these statuses has ended for good. */
export function isTerminalStatus(status: string): status is TerminalRunStatus {
  return TERMINAL.has(status);
}

export const MESSAGE_ROLES = ["user", "assistant", "system", "developer", "tool"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const INTERACTION_KINDS = [
  "approval",
  "private_input",
  "oauth",
  "a2a",
  "operator",
  "client_tool",
  "external_wait",
  "mcp_input",
] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

export const INTERACTION_STATUSES = ["pending", "resolved", "rejected", "expired", "cancelled", "lost"] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

/** Why a run is parked: the closed set every `pause.requested` carries. */
export const PAUSE_REASONS = ["hitl", "oauth", "a2a", "operator"] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/** How an MCP server asks its caller for input (elicitation): a form, or a page to open. */
export const MCP_INPUT_MODES = ["form", "url"] as const;
export type McpInputMode = (typeof MCP_INPUT_MODES)[number];

/** What a remote agent asks for when it parks a run: more input, or a credential. */
export const REMOTE_PROMPTS = ["input_required", "auth_required"] as const;
export type RemotePrompt = (typeof REMOTE_PROMPTS)[number];

/**
 * Who may resolve an interaction: its owner; the tenant's approvers other than the requester; or
 * the tenant's admins (an operator's pause).
 */
export const RESOLVER_POLICIES = ["owner", "approvers", "admins"] as const;
export type ResolverPolicy = (typeof RESOLVER_POLICIES)[number];

/** Who a gate nobody decided in time is escalated to: they may decide it from then on. */
export const ESCALATION_GROUPS = ["approvers", "admins"] as const;
export type EscalationGroup = (typeof ESCALATION_GROUPS)[number];

/**
 * A gate's safe default when it expires undecided: `reject` (the gated action never runs; the run
 * ends `expired`) or `cancel` (the whole run ends `cancelled`, with its helpers).
 */
export const EXPIRY_DEFAULTS = ["reject", "cancel"] as const;
export type ExpiryDefault = (typeof EXPIRY_DEFAULTS)[number];

/** The six kinds of tool the runtime knows (`mcp`: a tool of an MCP server a tenant connected). */
export const TOOL_KINDS = ["server", "client", "private_input", "external", "remote_agent", "mcp"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

export const OUTBOX_KINDS = ["email", "transfer"] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

/** What a tenant's outgoing webhooks can be told about (Standard Webhooks `type`). */
export const WEBHOOK_EVENTS = ["pause.requested", "pause.reminder", "pause.escalated", "pause.resolved", "pause.expired"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A webhook message: waiting for (another) attempt, delivered (a 2xx), or given up after the last retry. */
export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const CREDENTIAL_KINDS = ["api_key", "oauth"] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const JOB_STATUSES = ["in_progress", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * What a new message does to a thread whose run is still executing (*Double-texting*): wait its
 * turn, be refused, or cancel the running run at its next safe point.
 */
export const MULTITASK_POLICIES = ["enqueue", "reject", "interrupt"] as const;
export type MultitaskPolicy = (typeof MULTITASK_POLICIES)[number];

/** A tool call as an assistant message stores it: arguments as parsed JSON. */
export interface StoredToolCall {
  /** The call's id in the thread and on the wire: unique within the thread. */
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The id the model gave the call, when the thread knows it by another (see tool-call-ids.ts). */
  modelId?: string;
}

/** Per-reason facts of an interaction, beyond its message. Never a secret. */
export interface InteractionDetail {
  /** oauth: the provider to connect, the scopes asked for, and Harbor's consent URL (owner only). */
  provider?: string;
  scopes?: string[];
  authorizationUrl?: string;
  /** a2a: what the remote agent asks for, and who it is. */
  prompt?: RemotePrompt;
  agent?: string;
  /** approval: the standing approval its approver may grant with the decision (tools declaring `grantable`). */
  grant?: GrantOffer;
  /** mcp_input, and an MCP server's consent: the server and tool that asked. */
  mcp?: { server: string; tool: string };
  /** mcp_input: a form to fill in, or a page of the server's to open (`url`). */
  mode?: McpInputMode;
  url?: string;
}

/** One approver's vote on a gate that needs several (a quorum); the gate resolves once enough approve. */
export interface Vote {
  by: string;
  approved: boolean;
  reason?: string;
  /** ISO time the vote was cast. */
  at: string;
}

/** Who ended a run by cancelling it, as the thread's note and `run.cancelled` say. */
export type CancelledBy = "owner" | "operator" | "system";

/** The note a cancelled run leaves in its thread (a `system` message), so a reload shows it too. */
export function cancelledNote(by: CancelledBy): string {
  switch (by) {
    case "owner":
      return "Run cancelled by its owner.";
    case "operator":
      return "Run cancelled by an operator.";
    case "system":
      return "Run cancelled by Harbor.";
  }
}
