/**
 * What each kind of interaction means, in one table: a new kind is one entry here (and one answer
 * reader in `server/runtime/pause/answers.ts`), and the compiler names every other place that must
 * learn it, because each is typed `satisfies Record<InteractionKind, …>` or switches exhaustively.
 */
import { INTERACTION_KINDS, type InteractionKind, type McpInputMode, type PauseReason, type RemotePrompt } from "./vocabulary";

/** Which setting bounds a wait whose tool names no TTL of its own. */
export type KindTtl = "approval" | "oauth" | "a2a" | "week";

/**
 * Whether a wait survives its process: `checkpoint` (the run goes on from its checkpoint alone, on
 * any instance, also after a restart), `configurable` (the same when `HARBOR_DURABLE_WAITS` names
 * it, else it lives and dies with the process that parked it), `process` (never: what it holds is
 * never stored), `job` (held by its background job, not by a process).
 */
export type KindDurability = "checkpoint" | "configurable" | "process" | "job";

/**
 * Who ends it: `policy` (the gate's resolver policy: owner, approvers or admins), `owner`, `admins`
 * (an operator's pause, resumed from the console), `provider` (an OAuth callback proves consent;
 * the owner may only cancel), `job` (the background work reports back).
 */
export type KindAnsweredBy = "policy" | "owner" | "admins" | "provider" | "job";

/** The event that announces it in the run's log. */
export type KindAnnouncement = "pause.requested" | "client_tool.requested" | "external_wait.started";

export interface InteractionKindRules {
  /** Why a run waiting on it is parked (`pause.requested`); null for waits that are not pauses. */
  pauseReason: PauseReason | null;
  ttl: KindTtl;
  durability: KindDurability;
  answeredBy: KindAnsweredBy;
  announcedAs: KindAnnouncement;
  /** Whether a remote task (A2A) stands behind it: when it ends unanswered, that task is cancelled too. */
  remoteTask: boolean;
  /** Whether it stands in a thread's way while it waits (background work does not). */
  holdsThread: boolean;
  /** Whether an answer carries a payload at all (a consent or an operator's resume does not). */
  takesPayload: boolean;
  /** Whether what the owner types is private: sent once in `resume[].payload`, kept nowhere. */
  privateAnswer(detail: { prompt?: RemotePrompt; mode?: McpInputMode } | undefined): boolean;
  /** The AG-UI interrupt's `reason` (the wire contract). */
  wireReason(view: { toolCallId?: string; detail?: { prompt?: RemotePrompt } }): string;
}

const never = () => false;
const gateReason = (view: { toolCallId?: string }) => (view.toolCallId ? "tool_call" : "confirmation");

export const INTERACTION_KIND_RULES = {
  approval: {
    pauseReason: "hitl",
    ttl: "approval",
    durability: "configurable",
    answeredBy: "policy",
    announcedAs: "pause.requested",
    remoteTask: false,
    holdsThread: true,
    takesPayload: true,
    privateAnswer: never,
    wireReason: gateReason,
  },
  client_tool: {
    pauseReason: null,
    ttl: "approval",
    durability: "configurable",
    answeredBy: "owner",
    announcedAs: "client_tool.requested",
    remoteTask: false,
    holdsThread: true,
    takesPayload: true,
    privateAnswer: never,
    wireReason: gateReason,
  },
  private_input: {
    pauseReason: "hitl",
    ttl: "approval",
    durability: "process",
    answeredBy: "owner",
    announcedAs: "pause.requested",
    remoteTask: false,
    holdsThread: true,
    takesPayload: true,
    privateAnswer: () => true,
    wireReason: () => "private_input",
  },
  oauth: {
    pauseReason: "oauth",
    ttl: "oauth",
    durability: "checkpoint",
    answeredBy: "provider",
    announcedAs: "pause.requested",
    remoteTask: false,
    holdsThread: true,
    takesPayload: false,
    privateAnswer: never,
    wireReason: () => "oauth",
  },
  a2a: {
    pauseReason: "a2a",
    ttl: "a2a",
    durability: "checkpoint",
    answeredBy: "owner",
    announcedAs: "pause.requested",
    remoteTask: true,
    holdsThread: true,
    takesPayload: true,
    privateAnswer: (detail) => detail?.prompt === "auth_required",
    wireReason: (view) => view.detail?.prompt ?? "input_required",
  },
  operator: {
    pauseReason: "operator",
    ttl: "week",
    durability: "checkpoint",
    answeredBy: "admins",
    announcedAs: "pause.requested",
    remoteTask: false,
    holdsThread: true,
    takesPayload: false,
    privateAnswer: never,
    wireReason: () => "operator_pause",
  },
  // An MCP server asking for input mid-call (elicitation): a remote service demanding input. What
  // the owner types goes once to the server (`resume[].payload`) and is kept nowhere: a form's
  // session is a live handle, so the wait is only as durable as the process holding it (a URL
  // step retries the call from its checkpoint, on any instance).
  mcp_input: {
    pauseReason: "a2a",
    ttl: "a2a",
    durability: "checkpoint",
    answeredBy: "owner",
    announcedAs: "pause.requested",
    remoteTask: false,
    holdsThread: true,
    takesPayload: true,
    privateAnswer: (detail) => detail?.mode !== "url",
    wireReason: () => "input_required",
  },
  external_wait: {
    pauseReason: null,
    ttl: "week",
    durability: "job",
    answeredBy: "job",
    announcedAs: "external_wait.started",
    remoteTask: false,
    holdsThread: false,
    takesPayload: true,
    privateAnswer: never,
    wireReason: gateReason,
  },
} as const satisfies Record<InteractionKind, InteractionKindRules>;

export function kindRules(kind: InteractionKind): InteractionKindRules {
  return INTERACTION_KIND_RULES[kind];
}

/** The kinds whose rules pass `test`. */
export function kindsWhere(test: (rules: InteractionKindRules) => boolean): InteractionKind[] {
  return INTERACTION_KINDS.filter((kind) => test(INTERACTION_KIND_RULES[kind]));
}

/** The kinds an operator may make durable (`HARBOR_DURABLE_WAITS`). */
export type ConfigurablyDurableKind = {
  [K in InteractionKind]: (typeof INTERACTION_KIND_RULES)[K]["durability"] extends "configurable" ? K : never;
}[InteractionKind];
