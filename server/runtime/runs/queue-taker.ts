/**
 * The cluster's queue, seen from this instance: while it has room, it takes queued runs of other
 * instances (by priority, then age) and executes them here; their owners' streams follow the
 * shared log.
 */
import { lastSeq, takeNextQueuedRun } from "@/server/db/queries/runs";
import { findThread } from "@/server/db/queries/threads";
import type { RunState } from "../agent";
import { RunJournal } from "../log";
import { continueRun } from "./continue-run";
import { runLog, type RunsContext } from "./runs-context";

type QueuedRun = NonNullable<Awaited<ReturnType<typeof takeNextQueuedRun>>>;

export class QueueTaker {
  /** The pass that takes runs now, if one does. */
  private taking: Promise<void> | undefined;
  /** Another pass is asked for (a notice came while a pass ran). */
  private again = false;
  /**
   * Whether the cluster's queue may hold a run for this instance: yes after a queued signal (or at
   * start), no once a look found none. A freed slot looks only then, or when the last empty look is
   * older than queueRecheckMs (a queued run can become takeable without a signal: its thread's
   * earlier run ended, its owner's other run ended), so a busy instance does not query the queue
   * after every run it parks or ends when nothing waits anywhere.
   */
  private queueSignalled = true;
  private lastEmptyLook = 0;
  private readonly recheckMs: number;
  private recheck: NodeJS.Timeout | undefined;
  /** A stopping instance takes no more work from the cluster's queue. */
  private stopping = false;

  constructor(private readonly ctx: RunsContext) {
    this.recheckMs = ctx.deps.queueRecheckMs ?? 1_000;
  }

  /** The look at the queue under way, if any (`idle` waits for it). */
  get pending(): Promise<void> | undefined {
    return this.taking;
  }

  /**
   * A freed slot: looks now when the queue may hold a run, else once the last empty look is old
   * enough. A stopping instance takes nothing, but a run that ended here may let one of its thread
   * (handed to the cluster's queue) go next: it tells the others to look.
   */
  lookSoon(): void {
    const { deps } = this.ctx;
    if (this.stopping)
      return void deps.signalQueued?.().catch((error: unknown) => deps.log.warn({ err: error }, "could not signal the queue"));
    const wait = this.queueSignalled ? 0 : this.lastEmptyLook + this.recheckMs - Date.now();
    if (wait <= 0) return void this.take();
    this.recheck ??= setTimeout(() => {
      this.recheck = undefined;
      void this.take();
    }, wait);
    this.recheck.unref();
  }

  /** Takes queued runs while this instance has room; `signalled`: another instance said one waits. */
  take(signalled = false): Promise<void> {
    if (signalled) this.queueSignalled = true;
    if (!this.ctx.deps.signalQueued || this.stopping) return Promise.resolve();
    // A call while a pass runs asks for one more pass (a notice must not be lost).
    if (this.taking) {
      this.again = true;
      return this.taking;
    }
    this.taking = this.takeWhileRoom()
      .catch((error: unknown) => this.ctx.deps.log.error({ err: error }, "could not take a run from the cluster's queue"))
      .finally(() => (this.taking = undefined));
    return this.taking;
  }

  stop(): void {
    this.stopping = true;
    clearTimeout(this.recheck);
  }

  private async takeWhileRoom(): Promise<void> {
    const { deps, driver } = this.ctx;
    do {
      this.again = false;
      while (deps.scheduler.hasRoom() && !this.stopping) {
        // Never a run this instance already drives (or waits to), nor one of a thread busy here:
        // its lane would wait for a run that waits for it.
        this.queueSignalled = false;
        const next = await takeNextQueuedRun(deps.db, deps.instanceId, driver.busyHere(), deps.scheduler.maxPerUser);
        if (!next) {
          this.lastEmptyLook = Date.now();
          break;
        }
        this.queueSignalled = true;
        await this.execute(next);
      }
    } while (this.again && !this.stopping);
  }

  /** A run taken from the queue executes here (in the background: the pass goes on taking). */
  private async execute(next: QueuedRun): Promise<void> {
    const { ctx } = this;
    const journal = new RunJournal(next.runId, ctx.deps.store, ctx.deps.bus, await lastSeq(ctx.deps.db, next.runId));
    // Handed back by a stopping instance between two steps: it goes on from its checkpoint.
    if (next.handedOff) {
      ctx.inFlight.track(continueRun(ctx, { runId: next.runId, parked: { journal, waitingOn: [], expiresAt: 0 } }, {}));
      return;
    }
    const thread = await findThread(ctx.deps.db, next.threadId);
    const base: RunState = { ...next, step: 0, transcript: [], sharedState: thread?.state ?? {} };
    ctx.inFlight.track(
      ctx.driver.drive(base, journal, runLog(ctx.deps, next.runId, next.threadId), {
        loadTranscript: true,
        heldInput: next.heldInput,
        priority: next.priority,
      }),
    );
  }
}
