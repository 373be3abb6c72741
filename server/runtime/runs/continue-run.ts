/**
 * Going on with a parked run, in the same invocation (same run id, same log): once every answer is
 * in, once its background work finished, or once another instance handed it over. Also ends the
 * remote tasks of waits that closed unanswered.
 */
import { findRun, lastSeq, loadContinuation, type Continuation } from "@/server/db/queries/runs";
import { childOnFirstLine, type LogLines } from "@/server/log";
import { EMPTY_CHECKPOINT, kindRules, type Checkpoint, type InteractionKind } from "@/server/domain";
import type { Resolution, RunState } from "../agent";
import { asHarborError } from "../errors";
import { RunJournal, type RunEvent } from "../log";
import type { ReadyRun } from "../pause";
import { cancelRemoteTasks } from "../loop";
import type { RunsContext } from "./runs-context";
import { runLog } from "./runs-context";
import { toTranscript } from "./transcript";

/** `transport.threadId`: the thread's id as its client knows it, when not the stored one. */
export interface ContinuingTransport {
  transportRunId?: string;
  requestId?: string;
  threadId?: string;
}

/** Drives a parked run on from its checkpoint, in the same invocation (same run id, same log). */
export async function continueRun(ctx: RunsContext, ready: ReadyRun, transport: ContinuingTransport): Promise<void> {
  const { deps } = ctx;
  const { runId, parked } = ready;
  const { journal } = parked;
  let loaded: Continuation | undefined;
  try {
    loaded = ready.continuation?.read() ?? (await loadContinuation(deps.db, runId));
    if (!loaded) throw new Error(`parked run ${runId} has no row`);
  } catch (error) {
    const log = childOnFirstLine(deps.log, { runId, requestId: transport.requestId });
    log.error({ err: error }, "could not continue the run");
    return ctx.driver.fail(journal, asHarborError(error), log);
  }
  const log = runLog(deps, runId, loaded.threadId, transport.requestId);
  const checkpoint = loaded.checkpoint ?? EMPTY_CHECKPOINT;
  journal.continueAfter(checkpoint.logSeq);
  const resolutions = parked.resolutions ?? new Map<string, Resolution>();
  // Instructions that reached the run while it was parked: applied at its first safe point.
  for (const stored of checkpoint.steering ?? []) deps.mailboxes.post(runId, stored, { force: true });
  // The owner cancelled a remote agent's question: its remote task is cancelled too.
  if ([...resolutions.values()].some((r) => kindRules(r.kind).remoteTask && r.status !== "resolved")) {
    void cancelRemoteTasks(deps.agents.get(loaded.agentId), checkpoint.calls, log);
  }
  // The answers are stored with the continuation's first write (the claim already set it running).
  journal.defer(resumedEvents(runId, loaded, transport, resolutions));
  await ctx.driver.drive(stateToContinue(runId, loaded, checkpoint), journal, log, {
    loadTranscript: false,
    priority: loaded.priority,
    resume: { calls: checkpoint.calls, resolutions, handles: parked.handles },
    ahead: loaded.ahead,
  });
}

/**
 * What the log says as the run goes on: `run.started` for a transport run that follows it, and one
 * `pause.resumed` per answered pause. A browser tool's request was announced as such, not as a
 * pause: its output goes into the transcript as a tool message instead.
 */
function resumedEvents(
  runId: string,
  loaded: Continuation,
  transport: ContinuingTransport,
  resolutions: ReadonlyMap<string, Resolution>,
): RunEvent[] {
  return [
    ...(transport.transportRunId
      ? [{ type: "run.started" as const, runId, threadId: transport.threadId ?? loaded.threadId, agentId: loaded.agentId, resumed: true }]
      : []),
    ...[...resolutions.values()]
      .filter((r) => kindRules(r.kind).announcedAs !== "client_tool.requested")
      .map((r): RunEvent => ({ type: "pause.resumed", pauseId: r.interactionId, runId, decision: decisionOf(r), actorId: r.actorId })),
  ];
}

/** What was decided: an approval's answer says approved or rejected; any other answer is just resolved. */
function decisionOf(resolution: Resolution): "approved" | "rejected" | "cancelled" | "resolved" {
  if (resolution.status !== "resolved") return resolution.status;
  switch (resolution.kind) {
    case "approval":
      return resolution.payload?.approved === false ? "rejected" : "approved";
    case "client_tool":
    case "private_input":
    case "oauth":
    case "a2a":
    case "mcp_input":
    case "operator":
    case "external_wait":
      return "resolved";
  }
}

/** The run's state as its checkpoint and its thread's stored transcript give it back. */
function stateToContinue(runId: string, loaded: Continuation, checkpoint: Checkpoint): RunState {
  return {
    runId,
    threadId: loaded.threadId,
    agentId: loaded.agentId,
    tenantId: loaded.tenantId,
    ownerId: loaded.ownerId,
    step: checkpoint.step,
    transcript: toTranscript(loaded.messages),
    sharedState: loaded.threadState,
    answers: checkpoint.answers,
    outcome: checkpoint.outcome,
    goal: checkpoint.goal,
    context: checkpoint.context,
    children: checkpoint.children,
    usage: checkpoint.usage,
  };
}

/** A run whose background work finished here, its agent going on from the result: driven on from its checkpoint. */
export function continueAfterWork(ctx: RunsContext, runId: string): void {
  ctx.inFlight.track(
    (async () => {
      const journal = new RunJournal(runId, ctx.deps.store, ctx.deps.bus, await lastSeq(ctx.deps.db, runId));
      await continueRun(ctx, { runId, parked: { journal, waitingOn: [], expiresAt: 0 } }, {});
    })(),
  );
}

/**
 * Remote waits that closed unanswered (the run cancelled or expired): their remote tasks are
 * cancelled in the background, from the runs' checkpoints.
 */
export function remoteWaitsClosed(ctx: RunsContext, closed: readonly { runId: string; kind: InteractionKind }[]): void {
  for (const runId of new Set(closed.filter((c) => kindRules(c.kind).remoteTask).map((c) => c.runId))) {
    const log: LogLines = childOnFirstLine(ctx.deps.log, { runId });
    void findRun(ctx.deps.db, runId)
      .then((run) => run && cancelRemoteTasks(ctx.deps.agents.get(run.agentId), (run.readCheckpoint() ?? EMPTY_CHECKPOINT).calls, log))
      .catch((error: unknown) => log.warn({ err: error }, "the remote tasks of a closed run could not be looked up"));
  }
}
