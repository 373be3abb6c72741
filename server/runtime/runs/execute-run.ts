/**
 * Executing one run here: it waits for its turn, runs the loop (from a fresh start or from a
 * checkpoint), and ends its exchange in exactly one way — parked on the coordinator, completed,
 * failed, or (its instance stopping) handed to the cluster's queue. Whatever fails, the run ends
 * with `run.failed`, so no stream hangs and no run stays `running`.
 */
import { randomUUID } from "node:crypto";
import { holdSteering, joinHeldInput, takeQueuedRun } from "@/server/db/queries/runs";
import { listMessages } from "@/server/db/queries/threads";
import type { LogLines } from "@/server/log";
import type { AgentDefinition, ResumeInput, RunState } from "../agent";
import { LeaseLost } from "../cluster";
import { asHarborError, HarborError, NotFoundError } from "../errors";
import type { RunJournal } from "../log";
import type { GrantSnapshot } from "../policies";
import type { DriverContext } from "./driver-context";
import { usageSince } from "../loop";
import { checkpointOf, fail, finish, handBack, handOver } from "./run-endings";
import { runLoop, type LoopResult, type RunLoopDeps } from "../loop";
import { tracedStretch } from "./run-trace";
import { safePoint } from "./safe-point";
import type { LaneTurn } from "./thread-lanes";
import { toTranscript, unansweredCallsOf } from "./transcript";
import { CancelledWhileWaiting, HandedOff, TakenElsewhere, takeTurn, untilAborted, untilTransportEnds } from "./turn";

export interface DriveOptions {
  loadTranscript: boolean;
  resume?: ResumeInput;
  priority?: number;
  heldInput?: boolean;
  /** The thread's earlier runs queued or running anywhere, when the run's first statement found them (absent: looked up in its turn). */
  ahead?: readonly string[];
  /** The owner's live grants as the run began (see grants.ts). */
  grants?: GrantSnapshot;
}

/**
 * Runs the loop; parks, completes or fails the run. Never throws. The run is marked as driven here
 * (and its thread's lane entered) before the first await, so a caller sees it at once.
 */
export async function drive(ctx: DriverContext, base: RunState, journal: RunJournal, log: LogLines, options: DriveOptions): Promise<void> {
  const { deps, here } = ctx;
  let parked = false;
  let takenElsewhere = false;
  here.enter(base.runId);
  const lane = here.lanes.enter(base.threadId);
  const said = { queued: false };
  try {
    const takeable = !options.resume;
    await takeTurn(ctx, base, journal, lane, { priority: options.priority ?? 0, takeable, ahead: options.ahead, said });
    const outcome = await tracedStretch(deps, base, options.resume !== undefined, () => executeRun(ctx, base, journal, log, options));
    parked = outcome === "parked";
  } catch (thrown) {
    takenElsewhere = await endEarly(ctx, base, journal, log, thrown, said.queued);
  } finally {
    deps.scheduler.release(base.runId);
    here.leave(base.runId);
    here.closing.delete(base.runId);
    // A run that ended (or runs elsewhere) has nothing left to steer here.
    if (!parked) deps.mailboxes.drop(base.runId);
    if (!takenElsewhere) lane.leave();
    deps.onSlotFreed?.();
  }
  if (takenElsewhere) await leaveLaneAfterElsewhere(ctx, base.runId, lane, log);
}

/** Its turn came: the run executes and its exchange ends parked, or finished, or handed back. */
async function executeRun(
  ctx: DriverContext,
  base: RunState,
  journal: RunJournal,
  log: LogLines,
  options: DriveOptions,
): Promise<"parked" | "ended"> {
  const { deps } = ctx;
  // Its own messages join the thread now — unless the run ahead left a question open.
  if (options.heldInput && !(await joinHeldInput(deps.db, base.runId)).joined) {
    throw new HarborError(
      "PENDING_INTERACTION",
      "While this message waited its turn, the conversation started waiting for an answer; answer it, then send the message again.",
    );
  }
  const stored = options.loadTranscript ? await listMessages(deps.db, base.threadId) : undefined;
  const initial = stored ? { ...base, transcript: toTranscript(stored) } : base;
  // Checked before the agent's tools are connected (MCP servers): a run refused here costs no connection.
  const unanswered = stored ? await unansweredCallsOf(deps.db, stored) : undefined;
  // Two runs that started at once (two Retry clicks in two tabs): the one behind finds the thread waiting.
  if (unanswered?.waiting) throw new HarborError("PENDING_INTERACTION", "The conversation waits for an answer; answer it first.");
  const agent = await withConnectedTools(deps, deps.agents.get(initial.agentId), initial.tenantId);
  if (!agent) throw new NotFoundError(`Agent "${initial.agentId}"`);
  const loopDeps = loopDepsFor(ctx, initial, agent, journal, options.grants);
  // Nor does it plan from calls that earlier requests left unanswered for good (see transcript.ts).
  if (unanswered) loopDeps.closedCalls = unanswered.closed;
  const result = await runUntilSettled(ctx, initial, agent, loopDeps, options.resume, log);
  const final = result.state;
  switch (result.type) {
    case "handed_back":
      await handBack(deps, final, journal, log);
      return "ended";
    case "paused":
      await park(ctx, initial, result, journal, log);
      return "parked";
    case "finished":
      await finish(deps, final, journal, { usage: usageSince(initial.usage, final.usage) });
      return "ended";
  }
}

/** What the loop may do, bound to this run: its writes go through the run's journal. */
function loopDepsFor(
  ctx: DriverContext,
  initial: RunState,
  agent: AgentDefinition,
  journal: RunJournal,
  grants: GrantSnapshot | undefined,
): RunLoopDeps {
  const { deps } = ctx;
  // Taken as the run starts here: a reclaim of this instance after it changes it, and the run stops.
  const generation = deps.lease?.generation();
  // Each budget's warning is said once per stretch of the run.
  const warned = new Set<string>();
  const budgets = deps.budgets;
  return {
    ...(budgets
      ? { budget: { check: (state) => budgets.check(state, warned), record: (state, usage) => budgets.record(state, usage) } }
      : {}),
    append: async (events, append) => {
      const alongside = {
        ...(append?.message ? { messages: { threadId: initial.threadId, rows: [append.message] } } : {}),
        ...(append?.outbox?.length ? { outbox: append.outbox } : {}),
        ...(append?.grantUse ? { grantUses: [append.grantUse] } : {}),
      };
      if (append?.defer) journal.defer(events, alongside, { paceMs: append.paceMs });
      else await journal.append(events, { paceMs: append?.paceMs, alongside });
    },
    stream: (events) => journal.stream(events),
    flush: () => journal.flush(),
    fence: deps.lease && generation !== undefined ? () => deps.lease!.check(generation) : undefined,
    newId: randomUUID,
    streamChunkMs: deps.streamChunkMs,
    textFrameMs: deps.textFrameMs,
    maxSteps: deps.maxSteps,
    safePoint: (state, where) => safePoint(ctx, state, journal, where),
    spawn: (state, requests) => deps.spawn(state, requests),
    credentials: deps.credentials,
    keepSecret: deps.keepSecret,
    standingApproval: deps.grants
      ? (state, definition, call) =>
          deps.grants!.covering(
            { tenantId: state.tenantId, ownerId: state.ownerId, threadId: state.threadId, args: call.args },
            agent,
            definition,
            grants,
          )
      : undefined,
    grantIsLive: deps.grants?.isLive,
    signal: deps.mailboxes.cancelSignal(initial.runId),
  };
}

/**
 * Runs the loop until it parks, is handed back, or finishes with nothing left to do. Done: from
 * here on steering is refused, not dropped. Whatever came after the loop's last safe point (a
 * message sent as the planner finished) gets its turn first.
 */
async function runUntilSettled(
  { deps, here }: DriverContext,
  initial: RunState,
  agent: AgentDefinition,
  loopDeps: RunLoopDeps,
  resume: ResumeInput | undefined,
  log: LogLines,
): Promise<LoopResult> {
  let result = await runLoop(initial, agent, loopDeps, resume);
  while (result.type === "finished") {
    here.closing.add(initial.runId);
    const late = deps.mailboxes.take(initial.runId).filter((q) => q.instruction.type !== "PRIORITIZE");
    if (late.length === 0 || result.state.outcome) {
      if (late.length > 0) log.warn({ instructions: late.map((q) => q.instruction.type) }, "steering reached a run as it ended");
      break;
    }
    here.closing.delete(initial.runId);
    for (const q of late) deps.mailboxes.post(initial.runId, q, { force: true });
    result = await runLoop(result.state, agent, loopDeps);
  }
  return result;
}

/** Parks the run on the coordinator: it waits for its answers, here or (made durable) anywhere. */
async function park(
  { deps }: DriverContext,
  initial: RunState,
  result: Extract<LoopResult, { type: "paused" }>,
  journal: RunJournal,
  log: LogLines,
): Promise<void> {
  const final = result.state;
  // Streamed text goes out in its own write first: once the park commits, the gate can be
  // answered at once, and the resumed run's events must not overtake the text still streaming.
  if (journal.hasPacedDeferred) await journal.flush();
  await deps.coordinator.park(
    final,
    journal,
    { ...result.parking, usage: usageSince(initial.usage, final.usage) },
    checkpointOf(final, result.parking.calls),
  );
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
}

/**
 * The drive stopped before the run's exchange ended its own way: taken by another instance,
 * handed off, cancelled while waiting, or failed. True when the run goes on elsewhere.
 */
async function endEarly(
  { deps }: DriverContext,
  base: RunState,
  journal: RunJournal,
  log: LogLines,
  thrown: unknown,
  queued: boolean,
): Promise<boolean> {
  if (thrown instanceof TakenElsewhere) return true;
  if (thrown instanceof LeaseLost) {
    // Reclaimed while it stalled: the run was ended elsewhere. Nothing more is done or written here.
    log.warn({}, "a run stopped: this instance was reclaimed by another while it held it");
    return true;
  }
  if (thrown instanceof HandedOff) {
    await handOver(deps, journal, queued).catch((error: unknown) => log.error({ err: error }, "could not hand a waiting run over"));
    return true;
  }
  if (thrown instanceof CancelledWhileWaiting) {
    // Only while it is still queued here: another instance may have taken it meanwhile.
    if (!(await takeQueuedRun(deps.db, base.runId, deps.instanceId))) return true;
    await finish(deps, { ...base, outcome: "cancelled", cancelledBy: thrown.by }, journal, { loadTranscript: true }).catch(
      (error: unknown) => log.error({ err: error }, "could not end a cancelled queued run"),
    );
    return false;
  }
  const error = asHarborError(thrown);
  // A budget used up is the rule working, not a fault: said without a stack trace.
  if (error.code === "BUDGET_EXCEEDED") log.info({ code: error.code, ...error.details }, "run stopped by a model budget");
  else log.error({ err: thrown, code: error.code }, "run failed");
  await fail(journal, error, log);
  return false;
}

/**
 * Taken by another instance: later runs of its thread here wait until it has had its turn. A
 * stopping instance does not wait for the runs it handed over: later ones of its threads left too.
 */
async function leaveLaneAfterElsewhere({ deps, here }: DriverContext, runId: string, lane: LaneTurn, log: LogLines): Promise<void> {
  if (here.stopping) return lane.leave();
  try {
    const ended = untilTransportEnds(deps, runId);
    ended.catch(() => undefined);
    await untilAborted(ended, here.leaving.signal);
  } catch (error) {
    if (!here.leaving.signal.aborted) log.warn({ err: error }, "lost track of a run another instance took");
  } finally {
    lane.leave();
  }
}

/**
 * The agent as this run sees it: with its tenant's MCP tools beside its own when it takes them.
 * Its own tools keep their names: a server's tool never stands in for one.
 */
async function withConnectedTools(
  deps: DriverContext["deps"],
  agent: AgentDefinition | undefined,
  tenantId: string,
): Promise<AgentDefinition | undefined> {
  if (!agent?.connectedTools || !deps.connectedTools) return agent;
  const connected = await deps.connectedTools(tenantId);
  if (connected.size === 0) return agent;
  return { ...agent, tools: new Map([...connected, ...agent.tools]) };
}
