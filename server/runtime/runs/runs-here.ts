/**
 * What this process knows about the runs it drives: which execute or wait for their turn here,
 * which are being ended, the thread lanes, and how far a graceful stop has gone. The driver's
 * parts share one of these (see drive.ts).
 */
import type { CancelledBy } from "@/server/domain";
import { ThreadLanes } from "./thread-lanes";
import { CancelledWhileWaiting, HandedOff } from "./turn";

/** A run waiting for its turn: the way to end that wait, and whether another instance could take it. */
export interface WaitingRun {
  controller: AbortController;
  takeable: boolean;
}

export class RunsHere {
  /**
   * Runs this process is executing right now, or waiting to (their steering goes through the
   * mailbox), each with how many drives hold it: a run answered as it parks is driven on while the
   * drive that parked it still finishes, and that one leaving must not unmark the other.
   */
  private readonly executing = new Map<string, number>();
  /** Runs whose loop is done and that are being ended: no longer steerable. */
  readonly closing = new Set<string>();
  /** Runs waiting for their turn, each with the way to end that wait and whether another instance could take it. */
  readonly waiting = new Map<string, WaitingRun>();
  readonly lanes = new ThreadLanes();
  /**
   * A graceful stop (with other instances to go on): runs that wait for their turn here go to the
   * cluster's queue (`stopping`), and from `handingBack` on, executing runs are handed back at their
   * next step.
   */
  stopping = false;
  handingBack = false;
  /** Aborts, as the stop begins, the following of runs that were taken elsewhere (nothing here waits for them any more). */
  readonly leaving = new AbortController();

  enter(runId: string): void {
    this.executing.set(runId, (this.executing.get(runId) ?? 0) + 1);
  }

  leave(runId: string): void {
    const left = (this.executing.get(runId) ?? 1) - 1;
    if (left > 0) this.executing.set(runId, left);
    else this.executing.delete(runId);
  }

  /** Whether a drive here holds the run (executing, waiting for its turn, or being ended). */
  holds(runId: string): boolean {
    return this.executing.has(runId);
  }

  /** Whether the run executes here and still takes steering (it is not being ended). */
  isExecuting(runId: string): boolean {
    return this.executing.has(runId) && !this.closing.has(runId);
  }

  /** Whether a run of the thread executes or waits for its turn in this process. */
  threadBusy(threadId: string): boolean {
    return this.lanes.busy(threadId);
  }

  /** Runs this process drives (or waits to), and threads with a run here. */
  busyHere(): { runIds: string[]; threadIds: string[] } {
    return { runIds: [...this.executing.keys()], threadIds: this.lanes.threads() };
  }

  /** Cancels a run that waits for its turn (its thread or a slot): it ends without executing. */
  cancelWaiting(runId: string, by: CancelledBy): boolean {
    const wait = this.waiting.get(runId);
    if (!wait) return false;
    wait.controller.abort(new CancelledWhileWaiting(by));
    return true;
  }

  /**
   * A graceful stop, first step: runs waiting for their turn here that another instance could take
   * go to the cluster's queue, and so does any such run from now on. Runs going on from a pause keep
   * waiting: their answers are held here (they are handed back at a step once they execute).
   */
  handOffWaiting(): void {
    this.stopping = true;
    this.leaving.abort(new HandedOff());
    for (const { controller, takeable } of this.waiting.values()) if (takeable) controller.abort(new HandedOff());
  }
}
