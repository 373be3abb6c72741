/**
 * Ending what an instance held once it is gone: reclaiming dead instances (any survivor, one per
 * dead instance), and releasing this instance's own work as it leaves.
 */
import { claimDeadInstances, failRunsOf, handOffInstance, pruneInstances, reclaimedInstances } from "@/server/db/queries/instances";
import { releaseLeases } from "@/server/db/queries/jobs";
import { STREAMED_AHEAD_MAX, type RunEvent } from "../log";
import type { Keeper } from "./keeper-state";

/** Every this many heartbeats, what reclaimed instances still hold is looked for (see `reclaim`). */
const SWEEP_RECLAIMED_EVERY = 15;
/** Reclaimed instances and unanswered forwarded requests are forgotten after a day. */
const PRUNE_AFTER_MS = 24 * 3600_000;

export const INSTANCE_LOST_MESSAGE = "The Harbor instance running this stopped before the run ended; try again.";

/**
 * Claims dead instances and ends what they held: process-held waits `lost`, executing runs
 * `INSTANCE_LOST`. Works from every reclaimed instance, not only those won now, so a reclaim cut
 * short (a crash between its statements) is finished by the next one.
 */
export async function reclaim(keeper: Keeper, options: { startup?: boolean } = {}): Promise<string[]> {
  const { deps, state } = keeper;
  const won = await claimDeadInstances(deps.db, deps.instanceId, deps.ttlMs, options.startup === true && deps.alone);
  // Now and then even when nothing new died: what an interrupted reclaim left is finished too.
  if (won.length === 0 && !options.startup && state.ticks++ % SWEEP_RECLAIMED_EVERY !== 0) return won;
  const dead = await reclaimedInstances(deps.db);
  const lost = await deps.coordinator.closeWaitsOf(dead);
  const failed = await failRunsOf(
    deps.db,
    dead,
    { code: "INSTANCE_LOST", message: INSTANCE_LOST_MESSAGE },
    { unowned: options.startup === true, streamedAhead: STREAMED_AHEAD_MAX },
  );
  publishAll(keeper, failed);
  const failedRuns = failed.filter((f) => f.event.type === "run.failed").length;
  if (won.length > 0 || lost > 0 || failedRuns > 0) {
    deps.log.warn({ instances: won, lostWaits: lost, failedRuns }, "reclaimed what dead instances held");
  }
  if (options.startup) await pruneInstances(deps.db, PRUNE_AFTER_MS);
  return won;
}

/**
 * Releases what this instance still holds as it leaves (see `reclaim`), so nobody waits for its
 * TTL: process-held waits end `lost` (durable ones stay open for any instance), jobs it still
 * works on are let go, runs still executing (they reached no safe point in time) end
 * `INSTANCE_LOST` — and so do queued ones, unless `toCluster` (another instance can take them).
 */
export async function releaseOwn({ deps }: Keeper, options: { toCluster: boolean }): Promise<void> {
  const me = deps.instanceId;
  await deps.coordinator.closeWaitsOf([me]);
  if (options.toCluster) await handOffInstance(deps.db, me, true);
  await releaseLeases(deps.db, me);
  const failed = await failRunsOf(
    deps.db,
    [me],
    { code: "INSTANCE_LOST", message: INSTANCE_LOST_MESSAGE },
    { streamedAhead: STREAMED_AHEAD_MAX },
  );
  publishAll({ deps }, failed);
}

/** Hands the events that ended runs to this instance's readers (another's read them from the log). */
function publishAll({ deps }: Pick<Keeper, "deps">, written: readonly { runId: string; seq: number; event: RunEvent }[]): void {
  const at = Date.now();
  for (const w of written) deps.bus.publish({ runId: w.runId, seq: w.seq, at, event: w.event });
}
