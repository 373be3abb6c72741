/**
 * A thread rewound to one of its messages (edit-and-resend, regenerate; see runtime/runs/rewind-run.ts):
 * each call one statement, run in the rewind's transaction after `lockThread`.
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";
import { MESSAGE_ROLES, type MessageRole } from "@/server/domain";

/**
 * Locks the thread's row until the transaction ends: a run's first statement (which writes the
 * thread's row) and another rewind of the thread wait until then. False when there is no such thread.
 */
export async function lockThread(db: Executor, threadId: string): Promise<boolean> {
  const result = await db.execute(sql`select id from threads where id = ${threadId} for update`);
  return rowsOf(result, z.object({ id: z.string() })).length > 0;
}

/** What may still write to a thread: its runs queued, running or paused, and whether a request on it is open. */
export interface ThreadActivity {
  liveRunIds: string[];
  /** An interaction of the thread is pending (any kind: a background job's result too would be appended). */
  waiting: boolean;
}

/**
 * The thread's live runs and open requests. A statement of its own after `lockThread`, so that it
 * sees everything committed before the lock was granted — a statement that took the lock itself
 * would still read from the snapshot it started with.
 */
export async function threadActivity(db: Executor, threadId: string): Promise<ThreadActivity> {
  const result = await db.execute(sql`
    select
      array(select r.id from runs r where r.thread_id = ${threadId} and r.status in ('queued', 'running', 'paused') order by r.created_at, r.id) as live_run_ids,
      exists (select 1 from interactions i where i.thread_id = ${threadId} and i.status = 'pending') as waiting`);
  const [row] = rowsOf(result, z.object({ live_run_ids: z.array(z.string()), waiting: z.boolean() }));
  return { liveRunIds: row?.live_run_ids ?? [], waiting: row?.waiting ?? false };
}

export interface ConversationEntry {
  id: string;
  role: MessageRole;
  position: number;
}

/** The thread's conversation (its messages not superseded), in order: ids, roles and positions only. */
export async function conversationEntries(db: Executor, threadId: string): Promise<ConversationEntry[]> {
  const result = await db.execute(sql`
    select id, role, position from messages
    where thread_id = ${threadId} and superseded_at_position is null
    order by position`);
  return rowsOf(result, z.object({ id: z.string(), role: z.enum(MESSAGE_ROLES), position: column.number }));
}

/** A message's text (undefined: no such message in the thread). */
export async function messageContent(db: Executor, threadId: string, messageId: string): Promise<string | undefined> {
  const result = await db.execute(sql`select content from messages where thread_id = ${threadId} and id = ${messageId}`);
  return rowsOf(result, z.object({ content: z.string() }))[0]?.content;
}

/**
 * Supersedes the thread's messages from `fromPosition` on (those still in its conversation): each is
 * marked with the thread's last position now (see event-storage.ts for what that keeps). Rows are
 * never deleted or changed otherwise. Returns the ids superseded, in order.
 */
export async function supersedeMessages(db: Executor, threadId: string, fromPosition: number): Promise<string[]> {
  const result = await db.execute(sql`
    with superseded as (
      update messages set superseded_at_position = (select max(x.position) from messages x where x.thread_id = ${threadId})
      where thread_id = ${threadId} and superseded_at_position is null and position >= ${fromPosition}
      returning id, position
    )
    select id from superseded order by position`);
  return rowsOf(result, z.object({ id: z.string() })).map((r) => r.id);
}

/** The agent of the thread's latest run (the agent its conversation talks to); null before its first run. */
export async function latestAgentOf(db: Executor, threadId: string): Promise<string | null> {
  const result = await db.execute(sql`
    select agent_id from runs where thread_id = ${threadId} order by created_at desc, id desc limit 1`);
  return rowsOf(result, z.object({ agent_id: z.string() }))[0]?.agent_id ?? null;
}
