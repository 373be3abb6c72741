/**
 * What the coordinator's parts share: its dependencies, the runs this process holds parked, the
 * gates it can vouch for, who follows interaction changes, and the batched claim. Built once per
 * coordinator and passed explicitly to each part.
 */
import { claimForMany, type ClaimRequest, type ClaimResult } from "@/server/db/queries/interactions";
import type { InteractionKind } from "@/server/domain";
import { batched } from "../log";
import { ALWAYS_DURABLE, PROCESS_HELD } from "./durability";
import { ParkedGates } from "./parked-gates";
import type { CoordinatorDeps, InteractionChange, ParkedRun } from "./types";

/** One claim as the batcher takes it: the request, and the keys that must not share a statement. */
export interface ClaimEntry {
  request: ClaimRequest;
  keys: readonly string[];
}

export interface CoordinatorContext {
  deps: CoordinatorDeps;
  /** The invocations this process holds parked, by run. */
  parked: Map<string, ParkedRun>;
  gates: ParkedGates;
  listeners: Set<(change: InteractionChange) => void>;
  claim: (entry: ClaimEntry) => Promise<ClaimResult>;
  /** The kinds whose waits outlive their process here (always, or as configured). */
  durableKinds: readonly InteractionKind[];
  /** The kinds whose waits die with their process here. */
  lostWithProcess: readonly InteractionKind[];
  /** How many expiry sweeps ran (durable waits are swept every so many). */
  sweeps: number;
}

export function createCoordinatorContext(deps: CoordinatorDeps): CoordinatorContext {
  const durableKinds: readonly InteractionKind[] = [...ALWAYS_DURABLE, ...(deps.durableWaits ?? [])];
  return {
    deps,
    parked: new Map(),
    gates: new ParkedGates(),
    listeners: new Set(),
    // Concurrent answers share their claim's statement (see group-commit.ts); answers to one gate or
    // one run never share one, so each is decided as if alone.
    claim: batched(
      (entries: readonly ClaimEntry[]) =>
        claimForMany(
          deps.db,
          entries.map((entry) => entry.request),
          deps.instanceId,
        ),
      { keys: (entry) => entry.keys },
    ),
    durableKinds,
    lostWithProcess: PROCESS_HELD.filter((kind) => !durableKinds.includes(kind)),
    sweeps: 0,
  };
}

/** Tells every listener (inboxes, chats) of each change. */
export function notify(ctx: CoordinatorContext, changes: readonly InteractionChange[]): void {
  for (const change of changes) for (const listener of ctx.listeners) listener(change);
}

/** What a run parked here still waits on (undefined when it is not parked here). */
export function openWaitsOf(ctx: CoordinatorContext, runId: string): string[] | undefined {
  const run = ctx.parked.get(runId);
  return run?.waitingOn.filter((id) => !run.resolutions?.has(id));
}
