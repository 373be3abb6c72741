/**
 * Driving a run: runs the loop from a fresh start or from a checkpoint, and ends every exchange in
 * exactly one way — parked on the coordinator, completed, failed, or (its instance stopping) handed
 * to the cluster's queue for another instance. Whatever fails, the run ends with `run.failed`, so
 * no stream hangs and no run stays `running`.
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@/server/db";
import { listMessages, type MessageRow } from "@/server/db/queries/threads";
import {
  activeRunsOnThread,
  findRun,
  type RunRow,
  holdSteering,
  joinHeldInput,
  lastSeq,
  releaseQueuedRun,
  takeQueuedRun,
  takeUnheldQueuedRun,
} from "@/server/db/queries/runs";
import { findThread } from "@/server/db/queries/threads";
import {
  CHECKPOINT_VERSION,
  cancelledNote,
  type CancelledBy,
  type Checkpoint,
  type StoredInstruction,
  type TokenCount,
} from "@/server/domain";
import { ThreadLanes, type LaneTurn } from "./thread-lanes";
import type { Coordinator } from "../pause";
import type { EventBus } from "../log";
import type { Scheduler } from "./scheduler";
import { asHarborError, HarborError, NotFoundError } from "../errors";
import type { RunJournal } from "../log";
import type { AgentRegistry } from "../agent";
import { usageSince } from "./model-turn";
import type { ResumeInput } from "../agent";
import { runLoop, type RunLoopDeps, type SafePoint } from "./run-loop";
import type { RunEvent } from "../log";
import type { CredentialBroker } from "../access";
import type { GrantService, GrantSnapshot } from "../policies";
import { LeaseLost, type RunLease } from "../cluster";
import type { Mailboxes } from "./steering";
import type { RunState, TranscriptMessage } from "../agent";
import type { LogLines } from "@/server/log";

export interface DriveDeps {
  db: Database;
  instanceId: string;
  /** Tells the other instances a run waits in the cluster's queue (absent: this process is alone). */
  signalQueued?: () => Promise<void>;
  /** A slot freed here: take the cluster's next queued run, if any. */
  onSlotFreed?: () => void;
  /** Live events of runs, to follow one another instance executes. */
  bus: EventBus;
  agents: AgentRegistry;
  coordinator: Coordinator;
  mailboxes: Mailboxes;
  scheduler: Scheduler;
  /** Starts child runs of a run (see runs.ts). */
  spawn(parent: RunState, requests: readonly string[]): Promise<string[]>;
  streamChunkMs: number;
  maxSteps: number;
  /** OAuth credentials for tools that declare `auth`. */
  credentials?: CredentialBroker;
  /** Standing approvals a gated call may pass on. */
  grants?: GrantService;
  /** This instance's fencing token (see instances.ts): absent, nothing is fenced. */
  lease?: RunLease;
}

export function toTranscript(
  rows: readonly Pick<MessageRow, "id" | "role" | "content" | "toolCalls" | "toolCallId">[],
): TranscriptMessage[] {
  return rows.map(({ id, role, content, toolCalls, toolCallId }) => ({
    id,
    role,
    content,
    ...(toolCalls ? { toolCalls } : {}),
    ...(toolCallId ? { toolCallId } : {}),
  }));
}

/** A queued run another instance took from the cluster's queue: it runs there (this stream follows its log). */
class TakenElsewhere extends Error {
  constructor() {
    super("taken by another instance");
  }
}

/** Why a run's wait for its turn ended early. */
class CancelledWhileWaiting extends Error {
  constructor(readonly by: CancelledBy) {
    super("cancelled while waiting for its turn");
  }
}

/** A run that waited for its turn here went to the cluster's queue: this instance is stopping. */
class HandedOff extends Error {
  constructor() {
    super("handed to the cluster's queue");
  }
}

/** Resolves with `promise`, or rejects with the signal's reason once it aborts. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    promise.then(resolve, reject);
  });
}

export function createDriver(deps: DriveDeps) {
  /**
   * Runs this process is executing right now, or waiting to (their steering goes through the
   * mailbox), each with how many drives hold it: a run answered as it parks is driven on while the
   * drive that parked it still finishes, and that one leaving must not unmark the other.
   */
  const executing = new Map<string, number>();
  /** Runs whose loop is done and that are being ended: no longer steerable. */
  const closing = new Set<string>();
  const enter = (runId: string) => executing.set(runId, (executing.get(runId) ?? 0) + 1);
  const leave = (runId: string) => {
    const left = (executing.get(runId) ?? 1) - 1;
    if (left > 0) executing.set(runId, left);
    else executing.delete(runId);
  };
  /** Runs waiting for their turn, each with the way to end that wait and whether another instance could take it. */
  const waiting = new Map<string, { controller: AbortController; takeable: boolean }>();
  const lanes = new ThreadLanes();
  /**
   * A graceful stop (with other instances to go on): runs that wait for their turn here go to the
   * cluster's queue (`stopping`), and from `handingBack` on, executing runs are handed back at their
   * next step.
   */
  let stopping = false;
  let handingBack = false;
  /** Aborts, as the stop begins, the following of runs that were taken elsewhere (nothing here waits for them any more). */
  const leaving = new AbortController();

  /** Applies the steering that waited for this safe point, recording each in the run's log. */
  async function safePoint(state: RunState, journal: RunJournal, where: "step" | "tool"): Promise<SafePoint> {
    let queued = deps.mailboxes.take(state.runId);
    if (where === "tool") {
      // Only a cancel here; the rest waits for the next planner step.
      for (const later of queued.filter((q) => q.instruction.type !== "CANCEL")) deps.mailboxes.post(state.runId, later);
      queued = queued.filter((q) => q.instruction.type === "CANCEL");
    }
    // Stopping: between two steps the run can go on from its state elsewhere (steering first, below).
    if (queued.length === 0) return where === "step" && handingBack ? { type: "hand_back", state } : { type: "continue", state };
    let next = state;
    let stop: "cancel" | "pause" | undefined;
    const events: RunEvent[] = [];
    const said: TranscriptMessage[] = [];
    for (const { instruction, actorId } of queued) {
      switch (instruction.type) {
        case "INJECT_CONTEXT":
          next = { ...next, context: [...(next.context ?? []), instruction.context] };
          events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: instruction.context });
          break;
        case "REDIRECT":
          next = { ...next, goal: instruction.goal };
          events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: instruction.goal });
          break;
        case "USER_MESSAGE": {
          const message: TranscriptMessage = { id: randomUUID(), role: "user", content: instruction.message };
          said.push(message);
          next = { ...next, transcript: [...next.transcript, message] };
          events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: instruction.message });
          break;
        }
        case "PRIORITIZE":
          // Already in effect (the scheduler and the run's row); recorded in the run's log here.
          events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: `priority ${instruction.priority}` });
          break;
        case "CANCEL":
          stop = "cancel";
          next = { ...next, cancelledBy: queued.find((q) => q.instruction.type === "CANCEL")?.actorRole ?? "operator" };
          events.push({ type: "steer.applied", instruction: instruction.type, actorId });
          break;
        case "PAUSE":
          stop ??= "pause";
          events.push({ type: "steer.applied", instruction: instruction.type, actorId });
          break;
      }
    }
    const alongside = said.length > 0 ? { messages: { threadId: state.threadId, rows: said } } : undefined;
    // Stopping or parking writes next anyway: the instructions ride with that write.
    if (stop) journal.defer(events, alongside);
    else await journal.append(events, { alongside });
    if (stop === "cancel") return { type: "cancel", state: next };
    if (stop === "pause") {
      return {
        type: "pause",
        state: next,
        request: { id: randomUUID(), kind: "operator", reason: "operator", policy: "admins", message: "Paused by an operator" },
      };
    }
    return where === "step" && handingBack ? { type: "hand_back", state: next } : { type: "continue", state: next };
  }

  async function earlierRunsOnThread(base: RunState): Promise<string[]> {
    const active = await activeRunsOnThread(deps.db, base.threadId);
    return active.slice(0, Math.max(active.indexOf(base.runId), 0));
  }

  /**
   * Waits for the run's turn — its thread's earlier runs, then a slot in the process
   * (HARBOR_MAX_ACTIVE_RUNS) — saying once, in its log, how many runs are ahead while it waits.
   * Rejects with a `CancelledWhileWaiting` when the run is cancelled meanwhile.
   */
  async function waitTurn(
    base: RunState,
    journal: RunJournal,
    lane: LaneTurn,
    options: { priority: number; signal: AbortSignal; takeable: boolean; ahead?: readonly string[]; said: { queued: boolean } },
  ): Promise<void> {
    const { priority, signal } = options;
    // A stopping instance starts nothing another instance could: the run goes to the cluster's queue.
    if (options.takeable && stopping) throw new HandedOff();
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
      const ahead = options.ahead ?? (await earlierRunsOnThread(base));
      const earlier = ahead.filter((id) => !executing.has(id));
      if (earlier.length > 0) {
        await sayQueued(earlier.length);
        for (const runId of earlier) {
          const ended = untilTransportEnds(runId);
          // Abandoned when the wait is cancelled: its own failure then matters to nobody.
          ended.catch(() => undefined);
          await untilAborted(ended, signal);
        }
      }
    }
    await deps.scheduler.acquire({ runId: base.runId, tenantId: base.tenantId, ownerId: base.ownerId }, priority, sayQueued, signal);
    if (queued && !(await takeQueuedRun(deps.db, base.runId, deps.instanceId))) throw new TakenElsewhere();
  }

  /** Runs the loop; parks, completes or fails the run. Never throws. */
  async function drive(
    base: RunState,
    journal: RunJournal,
    log: LogLines,
    options: {
      loadTranscript: boolean;
      resume?: ResumeInput;
      priority?: number;
      heldInput?: boolean;
      /** The thread's earlier runs queued or running anywhere, when the run's first statement found them (absent: looked up in its turn). */
      ahead?: readonly string[];
      /** The owner's live grants as the run began (see grants.ts). */
      grants?: GrantSnapshot;
    },
  ): Promise<void> {
    let parked = false;
    let takenElsewhere = false;
    enter(base.runId);
    const lane = lanes.enter(base.threadId);
    const wait = new AbortController();
    const takeable = !options.resume;
    const said = { queued: false };
    waiting.set(base.runId, { controller: wait, takeable });
    try {
      try {
        await waitTurn(base, journal, lane, { priority: options.priority ?? 0, signal: wait.signal, takeable, ahead: options.ahead, said });
        // A cancel that came after the slot was granted, before the run was taken here (a stop then
        // lets it run: it is handed back at a step if it is still executing when that is asked).
        if (wait.signal.reason instanceof CancelledWhileWaiting) throw wait.signal.reason;
      } finally {
        waiting.delete(base.runId);
      }
      // Its turn came: its own messages join the thread now — unless the run ahead left a question open.
      if (options.heldInput && !(await joinHeldInput(deps.db, base.runId)).joined) {
        throw new HarborError(
          "PENDING_INTERACTION",
          "While this message waited its turn, the conversation started waiting for an answer; answer it, then send the message again.",
        );
      }
      const initial = options.loadTranscript ? { ...base, transcript: toTranscript(await listMessages(deps.db, base.threadId)) } : base;
      const agent = deps.agents.get(initial.agentId);
      if (!agent) throw new NotFoundError(`Agent "${initial.agentId}"`);
      // Taken as the run starts here: a reclaim of this instance after it changes it, and the run stops.
      const generation = deps.lease?.generation();
      const loopDeps: RunLoopDeps = {
        append: async (events, append) => {
          const alongside = {
            ...(append?.message ? { messages: { threadId: initial.threadId, rows: [append.message] } } : {}),
            ...(append?.outbox?.length ? { outbox: append.outbox } : {}),
            ...(append?.grantUse ? { grantUses: [append.grantUse] } : {}),
          };
          if (append?.defer) journal.defer(events, alongside, { paceMs: append.paceMs });
          else await journal.append(events, { paceMs: append?.paceMs, alongside });
        },
        flush: () => journal.flush(),
        fence: deps.lease && generation !== undefined ? () => deps.lease!.check(generation) : undefined,
        newId: randomUUID,
        streamChunkMs: deps.streamChunkMs,
        maxSteps: deps.maxSteps,
        safePoint: (state, where) => safePoint(state, journal, where),
        spawn: (state, requests) => deps.spawn(state, requests),
        credentials: deps.credentials,
        standingApproval: deps.grants
          ? (state, definition, call) =>
              deps.grants!.covering(
                { tenantId: state.tenantId, ownerId: state.ownerId, threadId: state.threadId, args: call.args },
                agent,
                definition,
                options.grants,
              )
          : undefined,
        grantIsLive: deps.grants?.isLive,
        signal: deps.mailboxes.cancelSignal(base.runId),
      };
      let result = await runLoop(initial, agent, loopDeps, options.resume);
      // Done: from here on steering is refused, not dropped. Whatever came after the loop's last
      // safe point (a message sent as the planner finished) gets its turn first.
      while (result.type === "finished") {
        closing.add(base.runId);
        const late = deps.mailboxes.take(base.runId).filter((q) => q.instruction.type !== "PRIORITIZE");
        if (late.length === 0 || result.state.outcome) {
          if (late.length > 0) log.warn({ instructions: late.map((q) => q.instruction.type) }, "steering reached a run as it ended");
          break;
        }
        closing.delete(base.runId);
        for (const q of late) deps.mailboxes.post(base.runId, q, { force: true });
        result = await runLoop(result.state, agent, loopDeps);
      }
      const final = result.state;
      if (result.type === "handed_back") {
        await handBack(final, journal, log);
        return;
      }
      if (result.type === "paused") {
        // Streamed text goes out in its own write first: once the park commits, the gate can be
        // answered at once, and the resumed run's events must not overtake the text still streaming.
        if (journal.hasPacedDeferred) await journal.flush();
        await deps.coordinator.park(
          final,
          journal,
          { ...result.parking, usage: usageSince(initial.usage, final.usage) },
          checkpointOf(final, result.parking.calls),
        );
        parked = true;
        // Steering that arrived after the last safe point: a cancel ends the parked run now; a
        // pause is moot (it is parked); the rest is stored with the run for when it goes on.
        const late = deps.mailboxes.take(final.runId);
        const cancel = late.find((q) => q.instruction.type === "CANCEL");
        try {
          if (cancel) await deps.coordinator.cancel(final.runId, cancel.actorRole);
          else {
            for (const q of late.filter((l) => l.instruction.type !== "PAUSE")) {
              // Answered at once, the run already went on here: its next safe point takes the instruction.
              if (!(await holdSteering(deps.db, final.runId, q, Infinity)).held) deps.mailboxes.post(final.runId, q, { force: true });
            }
          }
        } catch (error) {
          // The run is parked and stays answerable; only the late steering is lost, loudly.
          log.error({ err: error }, "could not apply steering that reached a run as it parked");
        }
        return;
      }
      await finish(final, journal, { usage: usageSince(initial.usage, final.usage) });
    } catch (thrown) {
      if (thrown instanceof TakenElsewhere) {
        takenElsewhere = true;
      } else if (thrown instanceof LeaseLost) {
        // Reclaimed while it stalled: the run was ended elsewhere. Nothing more is done or written here.
        takenElsewhere = true;
        log.warn({}, "a run stopped: this instance was reclaimed by another while it held it");
      } else if (thrown instanceof HandedOff) {
        takenElsewhere = true;
        await handOver(journal, said.queued).catch((error: unknown) => log.error({ err: error }, "could not hand a waiting run over"));
      } else if (thrown instanceof CancelledWhileWaiting) {
        // Only while it is still queued here: another instance may have taken it meanwhile.
        if (await takeQueuedRun(deps.db, base.runId, deps.instanceId)) {
          await finish({ ...base, outcome: "cancelled", cancelledBy: thrown.by }, journal, { loadTranscript: true }).catch(
            (error: unknown) => log.error({ err: error }, "could not end a cancelled queued run"),
          );
        } else takenElsewhere = true;
      } else {
        const error = asHarborError(thrown);
        log.error({ err: thrown, code: error.code }, "run failed");
        await fail(journal, error, log);
      }
    } finally {
      deps.scheduler.release(base.runId);
      leave(base.runId);
      closing.delete(base.runId);
      // A run that ended (or runs elsewhere) has nothing left to steer here.
      if (!parked) deps.mailboxes.drop(base.runId);
      if (!takenElsewhere) lane.leave();
      deps.onSlotFreed?.();
    }
    // A stopping instance does not wait for the runs it handed over: later ones of its threads left too.
    if (!takenElsewhere) return;
    if (stopping) return lane.leave();
    try {
      // Taken by another instance: later runs of its thread here wait until it has had its turn.
      const ended = untilTransportEnds(base.runId);
      ended.catch(() => undefined);
      await untilAborted(ended, leaving.signal);
    } catch (error) {
      if (!leaving.signal.aborted) log.warn({ err: error }, "lost track of a run another instance took");
    } finally {
      lane.leave();
    }
  }

  /** What a run going on elsewhere from this point needs, as its checkpoint keeps it. */
  function checkpointOf(final: RunState, calls: Checkpoint["calls"]): Checkpoint {
    return {
      version: CHECKPOINT_VERSION,
      step: final.step,
      calls,
      answers: final.answers,
      outcome: final.outcome,
      goal: final.goal,
      context: final.context,
      children: final.children,
      ...(final.usage ? { usage: final.usage } : {}),
    };
  }

  /**
   * A run that waited for its turn here goes to the cluster's queue (this instance is stopping): a
   * run already queued leaves this instance — unless another one took it meanwhile — and one not
   * yet queued is queued with `run.handed_off`. The others are told to look at the queue.
   */
  async function handOver(journal: RunJournal, queued: boolean): Promise<void> {
    if (queued) {
      if (!(await releaseQueuedRun(deps.db, journal.runId, deps.instanceId))) return;
    } else {
      // Still `running` here, where nobody else takes it: the write is this run's alone.
      await journal.append([{ type: "run.handed_off", from: deps.instanceId }], { alongside: { run: { status: "queued", leave: true } } });
    }
    await deps.signalQueued?.();
  }

  /**
   * Hands a run executing here back between two steps (this instance is stopping): its checkpoint —
   * with the steering it had not applied yet, and `handoff` so the instance that takes it goes on
   * from there — `queued` with no instance, and `run.handed_off`, in one write. The others are told
   * to look at the queue.
   */
  async function handBack(final: RunState, journal: RunJournal, log: LogLines): Promise<void> {
    const steering: StoredInstruction[] = deps.mailboxes.take(final.runId);
    const checkpoint: Checkpoint = {
      ...checkpointOf(final, []),
      ...(steering.length > 0 ? { steering } : {}),
      handoff: { from: deps.instanceId },
    };
    await journal.append([{ type: "run.handed_off", from: deps.instanceId }], {
      alongside: { run: { status: "queued", leave: true, checkpoint: { ...checkpoint }, ...(final.usage ? { usage: final.usage } : {}) } },
    });
    // Steering that came during the write waits with the run too, unless another instance took it already.
    for (const late of deps.mailboxes.take(final.runId)) {
      if (!(await holdSteering(deps.db, final.runId, late, Infinity)).held) {
        log.warn({ instruction: late.instruction.type }, "steering reached a run as it was handed back and could not go with it");
      }
    }
    await deps.signalQueued?.();
  }

  /** Resolves when the run (executing elsewhere) parks or ends — at once if it no longer executes. */
  async function untilTransportEnds(runId: string): Promise<void> {
    const events = deps.bus.follow(runId, await lastSeq(deps.db, runId));
    try {
      const run = await findRun(deps.db, runId);
      if (run?.status !== "queued" && run?.status !== "running") return;
      for await (const batch of events) void batch;
    } finally {
      await events.return?.();
    }
  }

  /**
   * Ends a run that finished (completed, or ended by a rejected or cancelled gate). A run someone
   * cancelled says who (`run.cancelled`) and leaves a note in its thread.
   */
  async function finish(
    final: RunState,
    journal: RunJournal,
    options: { loadTranscript?: boolean; usage?: TokenCount } = {},
  ): Promise<void> {
    const status = final.outcome ?? "completed";
    const note: TranscriptMessage | undefined =
      final.outcome === "cancelled" && final.cancelledBy
        ? { id: randomUUID(), role: "system", content: cancelledNote(final.cancelledBy) }
        : undefined;
    const transcript = options.loadTranscript ? toTranscript(await listMessages(deps.db, final.threadId)) : final.transcript;
    const events: RunEvent[] = [{ type: "snapshot", state: final.sharedState, messages: note ? [...transcript, note] : transcript }];
    if (note && final.cancelledBy) events.push({ type: "run.cancelled", by: final.cancelledBy });
    events.push({
      type: "run.completed",
      ...(final.outcome ? { status: final.outcome } : {}),
      ...(options.usage ? { usage: options.usage } : {}),
    });
    await journal.append(events, {
      alongside: {
        run: {
          status,
          terminal: true,
          checkpoint: { version: CHECKPOINT_VERSION, step: final.step, calls: [] },
          ...(final.usage ? { usage: final.usage } : {}),
        },
        ...(note ? { messages: { threadId: final.threadId, rows: [note] } } : {}),
      },
    });
  }

  /** Cancels a run that waits for its turn (its thread or a slot): it ends without executing. */
  function cancelWaiting(runId: string, by: CancelledBy): boolean {
    const wait = waiting.get(runId);
    if (!wait) return false;
    wait.controller.abort(new CancelledWhileWaiting(by));
    return true;
  }

  /**
   * Ends a run waiting in the cluster's queue that no instance holds (its own stopped): taken here
   * and ended `cancelled`. False when it is no longer waiting there.
   */
  /**
   * A cancelled run's checkpoint, if this release can read it: one it cannot (STATE_UNREADABLE) is
   * no reason to refuse the cancel, which then counts the run's steps and tokens from zero.
   */
  function readableCheckpoint(run: RunRow): Checkpoint | null {
    try {
      return run.readCheckpoint();
    } catch (error) {
      if (HarborError.is(error) && error.code === "STATE_UNREADABLE") return null;
      throw error;
    }
  }

  async function cancelUnheld(journal: RunJournal, by: CancelledBy): Promise<boolean> {
    if (!(await takeUnheldQueuedRun(deps.db, journal.runId, deps.instanceId))) return false;
    const run = await findRun(deps.db, journal.runId);
    if (!run) return false;
    const thread = await findThread(deps.db, run.threadId);
    const checkpoint = readableCheckpoint(run);
    const base: RunState = {
      runId: run.id,
      threadId: run.threadId,
      agentId: run.agentId,
      tenantId: run.tenantId,
      ownerId: run.ownerId,
      step: checkpoint?.step ?? 0,
      transcript: [],
      sharedState: thread?.state ?? {},
      ...(checkpoint?.usage ? { usage: checkpoint.usage } : {}),
    };
    await finish({ ...base, outcome: "cancelled", cancelledBy: by }, journal, { loadTranscript: true });
    return true;
  }

  /**
   * A graceful stop, first step: runs waiting for their turn here that another instance could take
   * go to the cluster's queue, and so does any such run from now on. Runs going on from a pause keep
   * waiting: their answers are held here (they are handed back at a step once they execute).
   */
  function handOffWaiting(): void {
    stopping = true;
    leaving.abort(new HandedOff());
    for (const { controller, takeable } of waiting.values()) if (takeable) controller.abort(new HandedOff());
  }

  async function fail(journal: RunJournal, error: HarborError, log: LogLines) {
    const failed = { type: "run.failed" as const, code: error.code, message: error.message };
    try {
      // Deferred events (a resume's answers) are kept: the log says what was decided before it failed.
      await journal.append([failed], {
        alongside: { run: { status: "failed", terminal: true, error: { code: error.code, message: error.message } } },
      });
    } catch (writeError) {
      // The database is failing too: still end the live streams so no client hangs.
      log.error({ err: writeError }, "could not record the run's failure");
      journal.discardDeferred();
      await journal.publish(journal.prepare([failed]));
    }
  }

  return {
    drive,
    fail,
    cancelWaiting,
    cancelUnheld,
    handOffWaiting,
    /** A graceful stop, second step: runs executing here are handed back at their next step. */
    handBackExecuting: () => {
      handingBack = true;
    },
    isExecuting: (runId: string) => executing.has(runId) && !closing.has(runId),
    /** Whether a run of the thread executes or waits for its turn in this process. */
    threadBusy: (threadId: string) => lanes.busy(threadId),
    /** Runs this process drives (or waits to), and threads with a run here. */
    busyHere: () => ({ runIds: [...executing.keys()], threadIds: lanes.threads() }),
  };
}
