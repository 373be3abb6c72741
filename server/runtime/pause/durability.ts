/**
 * How long a wait may last and whether it outlives its process, read from the kinds' table
 * (`INTERACTION_KIND_RULES`): a new kind states both there, not here.
 */
import { INTERACTION_KINDS, kindRules, kindsWhere, type ConfigurablyDurableKind, type InteractionKind } from "@/server/domain";
import type { CoordinatorDeps } from "./types";

/** External work ends by itself and an operator resumes when ready: a week bounds a forgotten one. */
export const EXTERNAL_WAIT_TTL_MS = 7 * 24 * 3600_000;

/** How long a wait of `kind` lasts when its tool names no TTL of its own. */
export function defaultTtlMs(deps: Pick<CoordinatorDeps, "approvalTtlMs" | "oauthTtlMs" | "a2aTtlMs">, kind: InteractionKind): number {
  const ttl = kindRules(kind).ttl;
  switch (ttl) {
    case "approval":
      return deps.approvalTtlMs;
    case "oauth":
      return deps.oauthTtlMs;
    case "a2a":
      return deps.a2aTtlMs;
    case "week":
      return EXTERNAL_WAIT_TTL_MS;
  }
}

/**
 * Waits whose run continues from its checkpoint alone — an operator's pause, an OAuth consent, a
 * remote agent's question (its task ids are plain JSON): whichever process receives the answer
 * takes the run over, also after a restart. Approvals and browser-tool waits join them when
 * configured (`HARBOR_DURABLE_WAITS`); a private form never does (its value is never replayed).
 */
export const ALWAYS_DURABLE: readonly InteractionKind[] = kindsWhere((rules) => rules.durability === "checkpoint");

const configurable = (kind: InteractionKind): kind is ConfigurablyDurableKind => kindRules(kind).durability === "configurable";

/** Waits that may be made durable; the rest of the process-held ones live and die with their process. */
export const OPTIONALLY_DURABLE: readonly ConfigurablyDurableKind[] = INTERACTION_KINDS.filter(configurable);

/** Waits whose live state is held by the process that parked them (unless made durable). */
export const PROCESS_HELD: readonly InteractionKind[] = kindsWhere(
  (rules) => rules.durability === "configurable" || rules.durability === "process",
);

/** Whether a wait of `kind` may be made durable by configuration. */
export function isOptionallyDurable(kind: InteractionKind): boolean {
  return configurable(kind);
}
