/**
 * Typed runtime errors with stable codes. The codes are a closed union: `server/edge/errors.ts`
 * alone maps them to HTTP statuses and tRPC codes; an AG-UI `RUN_ERROR` carries the code itself.
 * A paused run is control flow, not an error: pauses never travel through these classes.
 */
import { HarborError } from "@/server/domain";

export { ERROR_CODES, HarborError, type ErrorCode } from "@/server/domain";

export class NotFoundError extends HarborError {
  constructor(what: string) {
    super("NOT_FOUND", `${what} not found`);
  }
}

const STALE = Symbol.for("harbor.stale-credential");

/**
 * A remembered identity (`Identity.unverified`) that could not be used as it is: its credential
 * failed the check, or the request needs a looked-up identity. The caller looks the identity up
 * and tries once more; anywhere else it is a plain 401.
 */
export class StaleCredentialError extends HarborError {
  readonly [STALE] = true;
  constructor() {
    super("UNAUTHENTICATED", "Sign in or send a bearer token.");
  }
  /** True for a StaleCredentialError from any copy of this module (see BRAND). */
  static override is(value: unknown): value is StaleCredentialError {
    return HarborError.is(value) && (value as unknown as Record<symbol, unknown>)[STALE] === true;
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
