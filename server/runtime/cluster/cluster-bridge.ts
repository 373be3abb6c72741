/**
 * Live feeds across instances. When another instance stores events of a run someone follows here,
 * the new rows are read from the log (after the last seq handed out) and handed to the local bus, so
 * AG-UI streams and `runs.events` read the same whichever instance writes. Interaction changes
 * reach this instance's inboxes the same way. Woken by `NOTIFY`, never by polling.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import type { ClusterSignals } from "@/server/db/notifications";
import { findInteractions } from "@/server/db/queries/interactions";
import { listRunEvents } from "@/server/db/queries/runs";
import type { InteractionChange } from "../pause";
import type { EventBus } from "../log";

const PAGE = 500;

export function bridgeCluster(deps: {
  db: Database;
  log: Logger;
  bus: EventBus;
  signals: ClusterSignals;
  announce(change: InteractionChange): void;
  watchingInboxes(): boolean;
}): void {
  /** One read at a time per run, in order. */
  const reading = new Map<string, Promise<void>>();

  async function pull(runId: string): Promise<void> {
    for (;;) {
      const after = deps.bus.position(runId);
      // Nobody here follows it, or its readers start from the log themselves (they have not read it yet).
      if (after === undefined) return;
      const rows = await listRunEvents(deps.db, runId, after, PAGE);
      // Readers further on skip what they already hold.
      for (const row of rows) deps.bus.publish({ runId, seq: row.seq, at: row.createdAt.getTime(), event: row.data });
      if (rows.length < PAGE) return;
    }
  }

  function schedule(runId: string): void {
    const next = (reading.get(runId) ?? Promise.resolve())
      .then(() => pull(runId))
      .catch((error: unknown) => deps.log.warn({ err: error, runId }, "could not read another instance's run events"))
      .finally(() => {
        if (reading.get(runId) === next) reading.delete(runId);
      });
    reading.set(runId, next);
  }

  deps.signals.onRunEvents(schedule);
  // A reader that just said where it stands may have missed a notification while it read the log.
  deps.bus.onPositioned = schedule;
  deps.signals.onReconnected(() => {
    for (const runId of deps.bus.watched()) schedule(runId);
  });
  deps.signals.onInteraction((id) => {
    // Read only for someone: an instance nobody watches an inbox on has nothing to tell.
    if (!deps.watchingInboxes()) return;
    void findInteractions(deps.db, [id])
      .then(([row]) => {
        if (row) {
          deps.announce({
            tenantId: row.tenantId,
            interactionId: row.id,
            runId: row.runId,
            ownerId: row.ownerId,
            policy: row.policy,
            status: row.status,
          });
        }
      })
      .catch((error: unknown) => deps.log.warn({ err: error, interactionId: id }, "could not read another instance's interaction"));
  });
}
