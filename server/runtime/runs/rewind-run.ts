/**
 * Edit-and-resend and Regenerate: the owner rewinds a conversation to one of its messages and a new
 * run answers from there, begun like any run (its first statement, then driven in the background;
 * clients follow it on `runs.events` like any live run of the thread).
 *
 * - edit: the user's message and everything after it leave the conversation; the new text is a new
 *   message (a new id) of the new run.
 * - regenerate: the conversation's last reply, and everything after the user's message it answers,
 *   leave the conversation; the new run answers that message again.
 *
 * Dropped messages are superseded, not deleted: runs' snapshots are rebuilt from the thread's
 * messages (event-storage.ts), so deleting would rewrite the logs of the runs that wrote them; and
 * clients send the whole history with each new message, so a tab still showing a deleted message
 * would bring it back (a superseded id is known and ignored). Runs, their events, interactions,
 * the outbox and the audit are not touched; the rewind itself is audited (`thread.rewind`).
 *
 * Allowed only while nothing on the thread is live or waiting (a run queued, running or paused, a
 * request open): refused with RUN_IN_PROGRESS. The check, the rewind and the new run's first
 * statement share one transaction under the thread row's lock, so of two rewinds at once the second
 * sees the first one's run; one replayed later names a message that is no longer in the
 * conversation (NOT_FOUND). Either way one run starts.
 */
import { randomUUID } from "node:crypto";
import { appendAudit } from "@/server/db/queries/audit";
import { beginRuns, type BegunThread } from "@/server/db/queries/run-writes";
import {
  conversationEntries,
  latestAgentOf,
  lockThread,
  messageContent,
  supersedeMessages,
  threadActivity,
  type ConversationEntry,
} from "@/server/db/queries/thread-rewind";
import { updateThreadTitle, type ThreadRow } from "@/server/db/queries/threads";
import type { Executor } from "@/server/db";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/domain";
import { assertThreadAccess, findTenantThread, threadView, titleFrom, type VerifiedIdentity } from "../access";
import { HarborError, InvalidInputError, NotFoundError } from "../errors";
import { RunJournal } from "../log";
import type { StartRunRequest } from "./run-requests";
import type { RunsContext } from "./runs-context";
import { beginInput, launch, type NewRun } from "./start-run";
import { refuse } from "./start-refusals";

export interface RewindRequest {
  /** The thread as its client knows it. */
  threadId: string;
  /** Edit: the user's message to replace. Regenerate: the reply to replace (the conversation's last). */
  messageId: string;
  /** Edit: the message's new text. Absent: regenerate. */
  text?: string;
  requestId?: string;
}

export interface Rewound {
  runId: string;
  threadId: string;
  /** The messages that left the conversation, in order. */
  superseded: string[];
  /** Edit: the new message's id. */
  messageId?: string;
}

/** The rewind's transaction wrote nothing because the run's first statement refused (a full thread, a quota). */
class NothingBegun extends Error {}

export async function rewindHere(ctx: RunsContext, identity: VerifiedIdentity, request: RewindRequest): Promise<Rewound> {
  const { deps } = ctx;
  const text = request.text === undefined ? undefined : editedText(request.text);
  const thread = await findTenantThread(deps.db, deps.serverSecret, identity, request.threadId);
  assertThreadAccess(thread, identity);
  const agentId = await latestAgentOf(deps.db, thread.id);
  // A thread without runs has no messages either.
  if (!agentId) throw new NotFoundError("Message");
  const agent = deps.agents.get(agentId);
  if (!agent) throw new NotFoundError(`Agent "${agentId}"`);
  ctx.load.admitNewRun();

  const runId = randomUUID();
  const journal = new RunJournal(runId, deps.store, deps.bus);
  const clientThreadId = threadView(thread).id;
  const message = text === undefined ? undefined : { id: randomUUID(), role: "user" as const, content: text };
  const start: StartRunRequest = {
    agentId,
    threadId: thread.id,
    ...(thread.clientId ? { clientThreadId: thread.clientId } : {}),
    transportRunId: randomUUID(),
    messages: message ? [message] : [],
    requestId: request.requestId,
    multitask: "reject",
  };
  const run: NewRun = {
    runId,
    agent,
    journal,
    started: journal.prepare([{ type: "run.started", runId, threadId: clientThreadId, agentId }]),
    userMessages: message ? [message] : [],
    multitask: "reject",
  };
  const input = beginInput(ctx, identity, start, run);
  const begun = Date.now();
  let written: { thread: BegunThread; superseded: string[] };
  try {
    written = await deps.db.transaction(async (tx) => {
      if (!(await lockThread(tx, thread.id))) throw new NotFoundError("Thread");
      const activity = await threadActivity(tx, thread.id);
      if (activity.liveRunIds.length > 0 || activity.waiting) throw runInProgress(activity.liveRunIds);
      const conversation = await conversationEntries(tx, thread.id);
      const from = rewindPoint(conversation, request.messageId, text === undefined ? "regenerate" : "edit");
      const superseded = await supersedeMessages(tx, thread.id, from);
      if (text !== undefined && conversation[0]?.id === request.messageId) await retitle(tx, thread, request.messageId, text);
      const [begunThread] = await beginRuns(tx, [input]);
      if (!begunThread) throw new NothingBegun();
      await appendAudit(tx, {
        tenantId: identity.tenantId,
        actorId: identity.userId,
        action: "thread.rewind",
        subjectType: "thread",
        subjectId: thread.id,
        outcome: text === undefined ? "regenerated" : "edited",
        details: { runId, messageId: request.messageId, superseded },
      });
      return { thread: begunThread, superseded };
    });
  } catch (error) {
    if (!(error instanceof NothingBegun)) throw error;
    const refusal = await refuse(deps, identity, thread.id, "reject", run.userMessages.length);
    throw refusal?.refused ?? runInProgress([]);
  }
  const started = await launch(ctx, identity, start, run, written.thread, begun);
  // Clients follow the run on its log (runs.events), as they follow any live run of the thread.
  void started.events.return?.();
  return { runId, threadId: clientThreadId, superseded: written.superseded, ...(message ? { messageId: message.id } : {}) };
}

/**
 * The first message edited: a title that was made from it (not one the owner gave) follows the new
 * text, so the conversation is not listed under words it no longer holds.
 */
async function retitle(tx: Executor, thread: ThreadRow, messageId: string, text: string): Promise<void> {
  const before = await messageContent(tx, thread.id, messageId);
  if (before !== undefined && thread.title === titleFrom(before)) await updateThreadTitle(tx, thread.id, titleFrom(text));
}

/** An edit's text: trimmed, not empty, storable. (Its length limit is the edge's, as for any message.) */
function editedText(raw: string): string {
  const text = raw.trim();
  if (!text) throw new InvalidInputError("text", "must not be empty");
  if (!isStorableText(text)) throw new InvalidInputError("text", UNSTORABLE_TEXT_MESSAGE);
  return text;
}

function runInProgress(runIds: string[]): HarborError {
  return new HarborError(
    "RUN_IN_PROGRESS",
    "This conversation's run is still going or waiting for an answer: let it finish, or stop it, before editing or regenerating.",
    { runIds },
  );
}

/**
 * The position from which the conversation is superseded: an edited user message itself; for a
 * regenerate, whatever follows the user message that the reply answers. The message must be in the
 * conversation (NOT_FOUND: unknown, or superseded already — a replay).
 */
function rewindPoint(conversation: readonly ConversationEntry[], messageId: string, kind: "edit" | "regenerate"): number {
  const index = conversation.findIndex((m) => m.id === messageId);
  const target = conversation[index];
  if (!target) throw new NotFoundError("Message");
  if (kind === "edit") {
    if (target.role !== "user") throw new InvalidInputError("messageId", "only a message you wrote can be edited");
    return target.position;
  }
  if (target.role !== "assistant") throw new InvalidInputError("messageId", "only a reply can be regenerated");
  if (conversation.slice(index + 1).some((m) => m.role === "user")) {
    throw new InvalidInputError("messageId", "only the conversation's last reply can be regenerated");
  }
  const asked = conversation.slice(0, index).findLastIndex((m) => m.role === "user");
  if (asked === -1) throw new InvalidInputError("messageId", "this reply answers no message of yours");
  // The message right after the user's: the first of the reply (the target, or one before it).
  return (conversation[asked + 1] ?? target).position;
}
