/**
 * Standing approvals ("approve, and allow this tool with these bounds"): the vocabulary shared by
 * the runtime, the database and the UI. A grant binds a tool (at its version, for one agent) and
 * concrete bounds taken from the call that was approved; a later call within them passes its gate
 * without a pause.
 */

/** Where a grant applies: the conversation it was given in, or the owner's runs for some hours. */
export const GRANT_SCOPES = ["thread", "hours"] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** The longest an hours-scoped grant may last. */
export const MAX_GRANT_HOURS = 72;
/** A conversation-scoped grant lasts as long as the conversation, but never longer than this. */
export const THREAD_GRANT_DAYS = 30;

/** One bound on one argument: equal to the approved value, or a number at most `atMost`. */
export type GrantBound = { equals: string | number | boolean } | { atMost: number };
/** A grant's bounds, by argument name. */
export type GrantBounds = Record<string, GrantBound>;

/**
 * What an approver may grant with a decision (sent with the gate): the bounds taken from the call,
 * their words, and the caps they may raise (`approved` ≤ cap ≤ `limit`).
 */
export interface GrantOffer {
  bounds: GrantBounds;
  summary: string;
  caps?: { field: string; approved: number; limit: number }[];
  /** What the grant binds besides its bounds (not sent to clients). */
  toolVersion?: string;
  agentId?: string;
}

/** An approver's answer to a grant offer (the approval's `grant`). */
export interface GrantChoice {
  scope: GrantScope;
  /** With `hours`: how long (1 to MAX_GRANT_HOURS). */
  hours?: number;
  /** Raised caps, by argument. */
  caps?: Record<string, number>;
}
