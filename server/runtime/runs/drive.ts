/**
 * Driving a run: runs the loop from a fresh start or from a checkpoint, and ends every exchange in
 * exactly one way — parked on the coordinator, completed, failed, or (its instance stopping) handed
 * to the cluster's queue for another instance. Whatever fails, the run ends with `run.failed`, so
 * no stream hangs and no run stays `running`.
 *
 * The parts: waiting for a run's turn (turn.ts), executing it (execute-run.ts), its safe points
 * (safe-point.ts), and the ways it ends (run-endings.ts); what this process knows of its runs is
 * one `RunsHere` they share.
 */
import type { CancelledBy } from "@/server/domain";
import type { LogLines } from "@/server/log";
import type { RunState } from "../agent";
import type { RunJournal } from "../log";
import type { DriveDeps, DriverContext } from "./driver-context";
import { drive, type DriveOptions } from "./execute-run";
import { cancelUnheld, fail } from "./run-endings";
import { RunsHere } from "./runs-here";

export type { DriveDeps } from "./driver-context";
export type { DriveOptions } from "./execute-run";
export { toTranscript } from "./transcript";

export function createDriver(deps: DriveDeps) {
  const here = new RunsHere();
  const ctx: DriverContext = { deps, here };
  return {
    /** Runs the loop; parks, completes or fails the run. Never throws. */
    drive: (base: RunState, journal: RunJournal, log: LogLines, options: DriveOptions) => drive(ctx, base, journal, log, options),
    fail,
    /** Cancels a run that waits for its turn (its thread or a slot): it ends without executing. */
    cancelWaiting: (runId: string, by: CancelledBy) => here.cancelWaiting(runId, by),
    /**
     * Ends a run waiting in the cluster's queue that no instance holds (its own stopped): taken here
     * and ended `cancelled`. False when it is no longer waiting there.
     */
    cancelUnheld: (journal: RunJournal, by: CancelledBy) => cancelUnheld(deps, journal, by),
    /** A graceful stop, first step: runs waiting for their turn here go to the cluster's queue. */
    handOffWaiting: () => here.handOffWaiting(),
    /** A graceful stop, second step: runs executing here are handed back at their next step. */
    handBackExecuting: () => {
      here.handingBack = true;
    },
    isExecuting: (runId: string) => here.isExecuting(runId),
    /** Whether a run of the thread executes or waits for its turn in this process. */
    threadBusy: (threadId: string) => here.threadBusy(threadId),
    /** Runs this process drives (or waits to), and threads with a run here. */
    busyHere: () => here.busyHere(),
  };
}

/** What runs.ts drives its runs with. */
export type Driver = ReturnType<typeof createDriver>;
