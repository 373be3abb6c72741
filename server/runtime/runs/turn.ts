/**
 * A run's turn: its thread's earlier runs (here, then on other instances), then a slot in the
 * process. The ways a wait ends early are errors the drive tells apart (see execute-run.ts).
 */
import { activeRunsOnThread, findRun, lastSeq, takeQueuedRun } from "@/server/db/queries/runs";
import type { CancelledBy } from "@/server/domain";
import type { RunState } from "../agent";
import type { RunJournal } from "../log";
import type { DriveDeps, DriverContext } from "./driver-context";
import type { LaneTurn } from "./thread-lanes";

/** A queued run another instance took from the cluster's queue: it runs there (this stream follows its log). */
export class TakenElsewhere extends Error {
  constructor() {
    super("taken by another instance");
  }
}

/** Why a run's wait for its turn ended early. */
export class CancelledWhileWaiting extends Error {
  constructor(readonly by: CancelledBy) {
    super("cancelled while waiting for its turn");
  }
}

/** A run that waited for its turn here went to the cluster's queue: this instance is stopping. */
export class HandedOff extends Error {
  constructor() {
    super("handed to the cluster's queue");
  }
}

/** Resolves with `promise`, or rejects with the signal's reason once it aborts. */
export function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    promise.then(resolve, reject);
  });
}

/** Resolves when the run (executing elsewhere) parks or ends — at once if it no longer executes. */
export async function untilTransportEnds(deps: Pick<DriveDeps, "db" | "bus">, runId: string): Promise<void> {
  const events = deps.bus.follow(runId, await lastSeq(deps.db, runId));
  try {
    const run = await findRun(deps.db, runId);
    if (run?.status !== "queued" && run?.status !== "running") return;
    for await (const batch of events) void batch;
  } finally {
    await events.return?.();
  }
}

async function earlierRunsOnThread(deps: Pick<DriveDeps, "db">, base: RunState): Promise<string[]> {
  const active = await activeRunsOnThread(deps.db, base.threadId);
  return active.slice(0, Math.max(active.indexOf(base.runId), 0));
}

export interface TurnOptions {
  priority: number;
  /** A fresh run another instance could take (not one going on from a pause, whose answers are held here). */
  takeable: boolean;
  /** The thread's earlier runs, when the run's first statement found them. */
  ahead?: readonly string[];
  /** Set once the run said `run.queued`. */
  said: { queued: boolean };
}

/**
 * Waits for the run's turn, registered as waiting here meanwhile so that it can be cancelled or
 * handed off (see runs-here.ts). Rejects with a `CancelledWhileWaiting` when the run is cancelled.
 */
export async function takeTurn(
  ctx: DriverContext,
  base: RunState,
  journal: RunJournal,
  lane: LaneTurn,
  options: TurnOptions,
): Promise<void> {
  const wait = new AbortController();
  ctx.here.waiting.set(base.runId, { controller: wait, takeable: options.takeable });
  try {
    await waitTurn(ctx, base, journal, lane, { ...options, signal: wait.signal });
    // A cancel that came after the slot was granted, before the run was taken here (a stop then
    // lets it run: it is handed back at a step if it is still executing when that is asked).
    if (wait.signal.reason instanceof CancelledWhileWaiting) throw wait.signal.reason;
  } finally {
    ctx.here.waiting.delete(base.runId);
  }
}

/**
 * Waits for the run's turn — its thread's earlier runs, then a slot in the process
 * (HARBOR_MAX_ACTIVE_RUNS) — saying once, in its log, how many runs are ahead while it waits.
 * Rejects with a `CancelledWhileWaiting` when the run is cancelled meanwhile.
 */
async function waitTurn(
  { deps, here }: DriverContext,
  base: RunState,
  journal: RunJournal,
  lane: LaneTurn,
  options: TurnOptions & { signal: AbortSignal },
): Promise<void> {
  const { priority, signal } = options;
  // A stopping instance starts nothing another instance could: the run goes to the cluster's queue.
  if (options.takeable && here.stopping) throw new HandedOff();
  let queued = false;
  const sayQueued = async (ahead: number) => {
    if (queued) return;
    queued = true;
    options.said.queued = true;
    // A fresh run waits in the cluster's queue, where an instance with room may take it; a run
    // going on from a pause holds its answers here in memory, so it stays `running` here.
    await journal.append([{ type: "run.queued", position: ahead }], options.takeable ? { alongside: { run: { status: "queued" } } } : {});
    if (options.takeable) await deps.signalQueued?.();
  };
  if (lane.ahead > 0) {
    await sayQueued(lane.ahead);
    await untilAborted(lane.ready, signal);
  }
  // With other instances: earlier runs of the thread that execute (or wait) on one of them go first,
  // as the run's first statement found them when it could (a new run's first write, under the
  // thread's lock; the claim of the pause a run goes on from), else looked up now.
  if (deps.signalQueued) {
    const ahead = options.ahead ?? (await earlierRunsOnThread(deps, base));
    const earlier = ahead.filter((id) => !here.holds(id));
    if (earlier.length > 0) {
      await sayQueued(earlier.length);
      for (const runId of earlier) {
        const ended = untilTransportEnds(deps, runId);
        // Abandoned when the wait is cancelled: its own failure then matters to nobody.
        ended.catch(() => undefined);
        await untilAborted(ended, signal);
      }
    }
  }
  await deps.scheduler.acquire({ runId: base.runId, tenantId: base.tenantId, ownerId: base.ownerId }, priority, sayQueued, signal);
  if (queued && !(await takeQueuedRun(deps.db, base.runId, deps.instanceId))) throw new TakenElsewhere();
}
