/** What every step of `resolve` knows of the request it judges. */
import { HarborError, InvalidInputError } from "../../errors";
import { isRemembered, verifiedOnly, type Identity } from "../../access";
import type { ResolutionInput, ResolveOptions } from "../types";

export interface Answering {
  identity: Identity;
  entries: readonly ResolutionInput[];
  options: ResolveOptions;
  /** The interactions answered, in the entries' order. */
  ids: readonly string[];
}

/** Starts judging a request: each interrupt may be answered once in it. */
export function answering(identity: Identity, entries: readonly ResolutionInput[], options: ResolveOptions): Answering {
  const ids = entries.map((e) => e.interactionId);
  if (new Set(ids).size !== ids.length) throw new InvalidInputError("resume", "each interrupt may be answered once per request");
  return { identity, entries, options, ids };
}

/**
 * Runs `check`, whose refusals a remembered identity (see Identity.unverified) is told only once
 * looked up: to it, any refusal is StaleCredentialError, and the edge looks it up and asks again.
 */
export function checked<T>(identity: Identity, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (isRemembered(identity) && HarborError.is(error)) verifiedOnly(identity);
    throw error;
  }
}
