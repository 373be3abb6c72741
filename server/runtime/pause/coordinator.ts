/**
 * The coordinator: the ONE pause primitive. The run loop only says what it waits for; the
 * coordinator mints the interactions, checkpoints the run, emits `pause.requested`, ends the
 * transport run, holds the invocation, and — when a valid resolution lands — hands the run back
 * to be driven on. Every resolution, from AG-UI, tRPC or the console, goes through `resolve`, which
 * enforces the six rules (identity and policy, expiry, once, completeness, no edits, reject is
 * terminal) here and nowhere else.
 *
 * Its parts live beside it, each a function of the shared `CoordinatorContext` (context.ts):
 * parking (park.ts), resolving (resolve/, one file per step), reading answers (answers.ts),
 * consents (consent.ts), abandoning (abandon.ts), and closing what nobody answered (sweep.ts).
 */
import { releaseConsent } from "@/server/db/queries/interactions";
import type { CancelledBy, Checkpoint, InteractionKind } from "@/server/domain";
import type { Identity, VerifiedIdentity } from "../access";
import type { Parking, RunState } from "../agent";
import type { RunJournal } from "../log";
import { abandonUnanswerable } from "./abandon";
import { holdOpenConsent, openConsent } from "./consent";
import { createCoordinatorContext, notify } from "./context";
import { park } from "./park";
import { resolve } from "./resolve";
import { cancel, closeWaitsOf, sweepExpired } from "./sweep";
import type { CoordinatorDeps, InteractionChange, ResolutionInput, ResolveOptions } from "./types";

export type { Checkpoint } from "@/server/domain";
export { APPROVAL_RESPONSE_SCHEMA, ApprovalAnswer } from "./answers";
export { OPTIONALLY_DURABLE } from "./durability";
export {
  type CoordinatorDeps,
  HeldElsewhere,
  type InteractionChange,
  type ParkedRun,
  type ReadyRun,
  type ResolutionInput,
  type ResolveOptions,
  type ResolveVia,
} from "./types";

export function createCoordinator(deps: CoordinatorDeps) {
  const ctx = createCoordinatorContext(deps);
  return {
    park: (state: RunState, journal: RunJournal, parking: Parking, checkpoint: Checkpoint) =>
      park(ctx, state, journal, parking, checkpoint),
    resolve: (identity: Identity, entries: readonly ResolutionInput[], options: ResolveOptions) => resolve(ctx, identity, entries, options),
    abandonUnanswerable: (identity: Identity, entries: readonly ResolutionInput[], threadId: string) =>
      abandonUnanswerable(ctx, identity, entries, threadId),
    /**
     * The thread the named gates wait on, as this process parked them — its tenant and owner are
     * theirs — when it can vouch for every one and all are on `threadId`; else undefined (read it).
     */
    threadOfParkedGates: (ids: readonly string[], threadId: string) => ctx.gates.threadOf(ids, threadId),
    openConsent: (identity: VerifiedIdentity, interactionId: string, provider?: string) =>
      openConsent(ctx, identity, interactionId, provider),
    holdOpenConsent: (identity: VerifiedIdentity, interactionId: string, provider: string) =>
      holdOpenConsent(ctx, identity, interactionId, provider),
    releaseConsent: (interactionId: string) => releaseConsent(deps.db, interactionId),
    cancel: (runId: string, by: CancelledBy) => cancel(ctx, runId, by),
    sweepExpired: () => sweepExpired(ctx),
    closeWaitsOf: (deadInstances: readonly string[]) => closeWaitsOf(ctx, deadInstances),
    /** Whether a wait of this kind outlives its process. */
    isDurable: (kind: InteractionKind) => ctx.durableKinds.includes(kind),
    /** Whether anyone here follows interaction changes (an inbox, a chat). */
    watching: () => ctx.listeners.size > 0,
    /** Tells this instance's inboxes of a change another instance made. */
    announce: (change: InteractionChange) => notify(ctx, [change]),
    /** Live changes of interactions, for inboxes. Returns the unsubscribe function. */
    onChange(listener: (change: InteractionChange) => void): () => void {
      ctx.listeners.add(listener);
      return () => ctx.listeners.delete(listener);
    },
    /** How many invocations this process holds parked (benchmarks, health). */
    get parkedCount(): number {
      return ctx.parked.size;
    },
  };
}

export type Coordinator = ReturnType<typeof createCoordinator>;
