/**
 * The ways a run's exchange ends here, other than parking: completed (or ended by a rejected or
 * cancelled gate), failed, or — this instance stopping — handed to the cluster's queue for
 * another instance. Each is one write with the run's row, so the log and the row agree.
 */
import { randomUUID } from "node:crypto";
import { findRun, holdSteering, releaseQueuedRun, takeUnheldQueuedRun, type RunRow } from "@/server/db/queries/runs";
import { findThread, listMessages } from "@/server/db/queries/threads";
import {
  CHECKPOINT_VERSION,
  cancelledNote,
  type CancelledBy,
  type Checkpoint,
  type StoredInstruction,
  type TokenCount,
} from "@/server/domain";
import type { LogLines } from "@/server/log";
import type { RunState, TranscriptMessage } from "../agent";
import { HarborError } from "../errors";
import type { RunEvent, RunJournal } from "../log";
import type { DriveDeps } from "./driver-context";
import { toTranscript } from "./transcript";

/** What a run going on elsewhere from this point needs, as its checkpoint keeps it. */
export function checkpointOf(final: RunState, calls: Checkpoint["calls"]): Checkpoint {
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
 * Ends a run that finished (completed, or ended by a rejected or cancelled gate). A run someone
 * cancelled says who (`run.cancelled`) and leaves a note in its thread.
 */
export async function finish(
  deps: Pick<DriveDeps, "db">,
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

export async function fail(journal: RunJournal, error: HarborError, log: LogLines): Promise<void> {
  const failed = { type: "run.failed" as const, code: error.code, message: error.message };
  const record = () =>
    journal.append([failed], {
      alongside: { run: { status: "failed", terminal: true, error: { code: error.code, message: error.message } } },
    });
  try {
    // Deferred events (a resume's answers) are kept: the log says what was decided before it failed.
    await record();
  } catch (writeError) {
    // Streamed text the database refused would fail every write after it: dropped, the failure is stored.
    if (
      journal.dropUnstored() &&
      (await record().then(
        () => true,
        () => false,
      ))
    )
      return;
    // The database is failing too: still end the live streams so no client hangs.
    log.error({ err: writeError }, "could not record the run's failure");
    journal.discardDeferred();
    await journal.publish(journal.prepare([failed]));
  }
}

/**
 * A run that waited for its turn here goes to the cluster's queue (this instance is stopping): a
 * run already queued leaves this instance — unless another one took it meanwhile — and one not
 * yet queued is queued with `run.handed_off`. The others are told to look at the queue.
 */
export async function handOver(
  deps: Pick<DriveDeps, "db" | "instanceId" | "signalQueued">,
  journal: RunJournal,
  queued: boolean,
): Promise<void> {
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
export async function handBack(
  deps: Pick<DriveDeps, "db" | "instanceId" | "signalQueued" | "mailboxes">,
  final: RunState,
  journal: RunJournal,
  log: LogLines,
): Promise<void> {
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

/**
 * Ends a run waiting in the cluster's queue that no instance holds (its own stopped): taken here
 * and ended `cancelled`. False when it is no longer waiting there.
 */
export async function cancelUnheld(deps: Pick<DriveDeps, "db" | "instanceId">, journal: RunJournal, by: CancelledBy): Promise<boolean> {
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
  await finish(deps, { ...base, outcome: "cancelled", cancelledBy: by }, journal, { loadTranscript: true });
  return true;
}
