/**
 * Typed runtime errors with stable codes. The codes are a closed union: `server/api/errors.ts`
 * alone maps them to HTTP statuses and tRPC codes; an AG-UI `RUN_ERROR` carries the code itself.
 * A paused run is control flow, not an error: pauses never travel through these classes.
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
  /** The request body is not `application/json` (which also keeps cross-site forms out). */
  "UNSUPPORTED_MEDIA_TYPE",
  /** The planner kept going past the run's step limit. */
  "STEP_LIMIT",
  /** New input on a thread whose run waits on an open interaction: answer it first. */
  "PENDING_INTERACTION",
  /** A resume names an interrupt this thread does not have open. */
  "UNKNOWN_INTERRUPT",
  /** The interaction was already decided; the action is not repeated. */
  "ALREADY_RESOLVED",
  /** The interaction passed its `expiresAt`; its run ended `expired`. */
  "EXPIRED",
  /** A resume must answer every open interrupt of the thread at once. */
  "INCOMPLETE_RESUME",
  /** A private-input resume carried messages or state, which snapshots could echo: send only `resume[]`. */
  "PRIVATE_RESUME_HAS_TRANSCRIPT",
  /** The serving process that held the interaction restarted; ask again. */
  "INTERACTION_LOST",
  /** A paused tool's live handle could not be re-attached on resume; `details.key` names it. */
  "ERR_TOOL_CONTEXT_LOST",
  /** A tool's `ctx.state` holds something that is not plain JSON; `details.path` names it. */
  "ERR_TOOL_STATE_NOT_SERIALIZABLE",
  /** The run already ended: there is nothing left to steer. */
  "RUN_ENDED",
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
  /** The OAuth provider refused or failed a step of the authorization (exchange, refresh). */
  "OAUTH_FAILED",
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

export class NotFoundError extends HarborError {
  constructor(what: string) {
    super("NOT_FOUND", `${what} not found`);
  }
}

export class ForbiddenError extends HarborError {
  constructor(message: string) {
    super("FORBIDDEN", message);
  }
}

export class InvalidInputError extends HarborError {
  constructor(field: string, message: string) {
    super("INVALID_INPUT", `${field}: ${message}`, { field });
  }
}

/** A resume would need a live handle that can no longer be re-attached. */
export class ToolContextLostError extends HarborError {
  constructor(
    readonly key: string,
    why: string,
  ) {
    super("ERR_TOOL_CONTEXT_LOST", `The tool's live handle "${key}" could not be re-attached on resume: ${why}`, { key });
    this.name = "ToolContextLostError";
  }
}

/** Normalises anything thrown into a HarborError; unknown errors become INTERNAL without leaking internals. */
export function asHarborError(error: unknown): HarborError {
  if (HarborError.is(error)) return error;
  return new HarborError("INTERNAL", "Harbor hit an unexpected error; the server log has the details.");
}
