/**
 * The closed set of error codes. `server/edge/errors.ts` alone maps them to HTTP statuses and tRPC
 * codes; an AG-UI `RUN_ERROR` carries the code itself, so clients switch on these.
 */
export const ERROR_CODES = [
  /** No session cookie or bearer token, or one that is no longer valid. */
  "UNAUTHENTICATED",
  /** The caller is known but may not do this (another user's thread in the same tenant, a missing role). */
  "FORBIDDEN",
  /** The thing does not exist — or belongs to another tenant, which is indistinguishable on purpose. */
  "NOT_FOUND",
  /** The request does not match its schema; `details.field` names the offending field. */
  "INVALID_INPUT",
  /** The request body exceeds the 1 MiB limit. */
  "PAYLOAD_TOO_LARGE",
  /** `RunAgentInput.protocolVersion` names an AG-UI major version Harbor does not speak (it speaks 1.x). */
  "UNSUPPORTED_PROTOCOL",
  /** The request body is not `application/json` (which also keeps cross-site forms out). */
  "UNSUPPORTED_MEDIA_TYPE",
  /** The planner kept going past the run's step limit. */
  "STEP_LIMIT",
  /** New input on a thread whose run waits on an open interaction: answer it first. */
  "PENDING_INTERACTION",
  /** The conversation holds as many messages as a thread may (`HARBOR_MAX_THREAD_MESSAGES`): start a new one. */
  "THREAD_FULL",
  /** A resume names an interrupt this thread does not have open. */
  "UNKNOWN_INTERRUPT",
  /** The interaction was already decided; the action is not repeated. */
  "ALREADY_RESOLVED",
  /** This approver already voted on a gate that needs several approvers; it waits for the others. */
  "ALREADY_VOTED",
  /** A decision link was used already: each link decides once (the request may still be open to the inbox). */
  "LINK_USED",
  /** The interaction passed its `expiresAt`; its run ended `expired`. */
  "EXPIRED",
  /** A resume must answer every open interrupt of the thread at once. */
  "INCOMPLETE_RESUME",
  /** A private-input resume carried messages or state, which snapshots could echo: send only `resume[]`. */
  "PRIVATE_RESUME_HAS_TRANSCRIPT",
  /** The serving process that held the interaction restarted; ask again. */
  "INTERACTION_LOST",
  /** The instance executing the run stopped (crashed, or was killed) before the run ended: start it again. */
  "INSTANCE_LOST",
  /**
   * The instance reached is stopping and has handed its work to the others: it starts and continues
   * nothing more. Nothing was done: send the request again (another instance takes it).
   */
  "INSTANCE_STOPPING",
  /**
   * The instance reached is past its load limits and took nothing (`details.retryAfterS`; HTTP 503 with
   * `Retry-After`): send the request again then, or to another instance. Only new runs are refused so.
   */
  "OVERLOADED",
  /** A paused tool's live handle could not be re-attached on resume; `details.key` names it. */
  "ERR_TOOL_CONTEXT_LOST",
  /** A tool's `ctx.state` holds something that is not plain JSON; `details.path` names it. */
  "ERR_TOOL_STATE_NOT_SERIALIZABLE",
  /** The run already ended: there is nothing left to steer. */
  "RUN_ENDED",
  /**
   * A new message reached a thread whose run is still executing, and the policy is `reject`
   * (*Double-texting*); or an edit or regenerate reached a thread whose run is queued, running or
   * paused (`details.runIds`). Nothing was stored.
   */
  "RUN_IN_PROGRESS",
  /** More steering instructions wait for one run than its mailbox holds. */
  "TOO_MANY_INSTRUCTIONS",
  /** The tenant already has as many of these as it may (`details.quota` names what, `details.limit` how many). */
  "QUOTA_EXCEEDED",
  /**
   * A model token budget the run draws on is used up (`details.scope`: tenant or user, `period`: day
   * or month, `used`, `limit`): the run ended before its next model request was sent.
   */
  "BUDGET_EXCEEDED",
  /** One user holds more live feeds (subscriptions) at once than a process allows. */
  "TOO_MANY_SUBSCRIPTIONS",
  /** The instruction needs a run in another state (pausing a paused run, resuming a running one). */
  "RUN_STATE_CONFLICT",
  /** A tool failed, or answered outside its declared output schema. */
  "TOOL_FAILED",
  /** A remote agent (A2A) cannot be reached: nothing listens at its URL, or its agent card cannot be fetched. */
  "REMOTE_AGENT_UNAVAILABLE",
  /** A remote agent did not answer within its time limit. */
  "REMOTE_AGENT_TIMEOUT",
  /** A remote agent answered with a protocol error, a malformed answer, or a failed task. */
  "REMOTE_AGENT_FAILED",
  /** An MCP server cannot be reached, or answered outside the protocol. */
  "MCP_UNAVAILABLE",
  /** An MCP server did not answer a call in time (HARBOR_MCP_TIMEOUT_MS); the call was cancelled there. */
  "MCP_TIMEOUT",
  /** An MCP server refused a call: an error of the protocol, or authorization Harbor cannot obtain. */
  "MCP_FAILED",
  /** The model server could not be reached or kept failing (after retries), or stopped mid-answer. */
  "MODEL_UNAVAILABLE",
  /**
   * The model streamed more than a turn may hold (`HARBOR_MODEL_MAX_OUTPUT_CHARS` characters of
   * text and tool arguments): the request was stopped and the run ended; what it said is kept.
   */
  "MODEL_OUTPUT_TOO_LARGE",
  /** The OAuth provider refused or failed a step of the authorization (exchange, refresh). */
  "OAUTH_FAILED",
  /**
   * A stored value (a checkpoint, an event, a pause's detail, …) cannot be read by this release:
   * written by a newer one, or damaged. `details.shape` and `details.field` name it. The run it
   * belongs to ends with this code; nothing else is affected.
   */
  "STATE_UNREADABLE",
  /** An unexpected failure inside Harbor; the log has the details under the request id. */
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Next.js bundles server code into several layers (route handlers, server components), each with
 * its own copy of this module, so `instanceof` fails across them. A global symbol brand does not.
 */
const BRAND = Symbol.for("harbor.error");

export class HarborError extends Error {
  readonly [BRAND] = true;

  /** True for a HarborError from any copy of this module. */
  static is(value: unknown): value is HarborError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "HarborError";
  }
}
