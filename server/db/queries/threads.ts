import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";
import { messages, threads } from "../schema";
import { type MessageRole, type StoredToolCall } from "@/server/domain";

export interface ThreadRow {
  id: string;
  tenantId: string;
  ownerId: string;
  title: string;
  /** The id the client chose, when the thread is stored under the tenant's own id for it. */
  clientId: string | null;
  state: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface MessageRow {
  id: string;
  role: MessageRole;
  content: string;
  toolCalls: StoredToolCall[] | null;
  toolCallId: string | null;
  runId: string | null;
  createdAt: Date;
}

export async function findThread(db: Executor, threadId: string): Promise<ThreadRow | undefined> {
  const [row] = await db.select().from(threads).where(eq(threads.id, threadId)).limit(1);
  return row;
}

export async function insertThread(
  db: Executor,
  row: { id: string; tenantId: string; ownerId: string; title: string },
): Promise<ThreadRow> {
  const [created] = await db.insert(threads).values(row).returning();
  if (!created) throw new Error(`insert of thread ${row.id} returned no row`);
  return created;
}

/** The thread's conversation, in order: its messages, less those an edit or a regenerate superseded. */
export async function listMessages(db: Executor, threadId: string): Promise<MessageRow[]> {
  return db
    .select({
      id: messages.id,
      role: messages.role,
      content: messages.content,
      toolCalls: messages.toolCalls,
      toolCallId: messages.toolCallId,
      runId: messages.runId,
      createdAt: messages.createdAt,
    })
    .from(messages)
    .where(and(eq(messages.threadId, threadId), isNull(messages.supersededAtPosition)))
    .orderBy(asc(messages.position));
}

/**
 * How many messages a thread holds, superseded ones too: they are still stored, so the length limit
 * (`HARBOR_MAX_THREAD_MESSAGES`) bounds what editing again and again can keep.
 */
export async function countMessages(db: Executor, threadId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(messages).where(eq(messages.threadId, threadId));
  return row?.n ?? 0;
}

/**
 * A thread as its owner's list shows it, under the id its client knows (`clientId` when it has
 * one): the agent it talks to, and the thread of the run that asked for it (a helper's).
 */
export interface ThreadListRow extends Omit<ThreadRow, "state" | "clientId"> {
  /** The agent of the thread's latest run; null before the first run. */
  agentId: string | null;
  /** For a helper's thread: the thread of the run that started it. */
  parentThreadId: string | null;
}

/** `%` and `_` (and the escape itself) match literally in a LIKE pattern. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The owner's threads, newest first; with `search`, only those whose title or any message contains
 * it (case-insensitive).
 */
export async function listThreadsWithContext(
  db: Executor,
  owner: { tenantId: string; ownerId: string },
  options: { search?: string; limit?: number } = {},
): Promise<ThreadListRow[]> {
  const pattern = options.search ? likePattern(options.search) : null;
  const result = await db.execute(sql`
    select coalesce(t.client_id, t.id) as id, t.tenant_id, t.owner_id, t.title, t.created_at, t.updated_at,
      (select r.agent_id from runs r where r.thread_id = t.id order by r.created_at desc limit 1) as agent_id,
      (select coalesce(pt.client_id, pt.id) from runs c join runs p on p.id = c.parent_run_id join threads pt on pt.id = p.thread_id
        where c.thread_id = t.id order by c.created_at asc limit 1) as parent_thread_id
    from threads t
    where t.tenant_id = ${owner.tenantId} and t.owner_id = ${owner.ownerId}
      and (${pattern}::text is null
        or t.title ilike ${pattern}
        or exists (select 1 from messages m where m.thread_id = t.id and m.role in ('user', 'assistant')
          and m.superseded_at_position is null and m.content ilike ${pattern}))
    order by t.updated_at desc
    limit ${options.limit ?? 100}`);
  const row = z.object({
    id: z.string(),
    tenant_id: z.string(),
    owner_id: z.string(),
    title: z.string(),
    created_at: column.date,
    updated_at: column.date,
    agent_id: z.string().nullable(),
    parent_thread_id: z.string().nullable(),
  });
  return rowsOf(result, row).map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    ownerId: r.owner_id,
    title: r.title,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    agentId: r.agent_id,
    parentThreadId: r.parent_thread_id,
  }));
}

export async function updateThreadTitle(db: Executor, threadId: string, title: string): Promise<ThreadRow | undefined> {
  const [row] = await db.update(threads).set({ title }).where(eq(threads.id, threadId)).returning();
  return row;
}

/**
 * The thread and its helpers' threads (runs it started, at any depth): what a delete removes. Each
 * with whether a run on it is still live (queued, running or paused). Locks their rows: inside a
 * transaction, a run starting on one of them waits until it ends, so the answer holds until a delete.
 */
export async function threadFamily(db: Executor, threadId: string): Promise<{ id: string; live: boolean }[]> {
  const result = await db.execute(sql`
    with recursive family(id) as (
      select ${threadId}::text
      union
      select c.thread_id from family f join runs p on p.thread_id = f.id join runs c on c.parent_run_id = p.id
    )
    select t.id, exists (select 1 from runs r where r.thread_id = t.id and r.status in ('queued', 'running', 'paused')) as live
    from family f join threads t on t.id = f.id
    for update of t`);
  return rowsOf(result, z.object({ id: z.string(), live: z.boolean() }));
}

/** Deletes threads; their messages, runs, events, interactions and jobs go with them (foreign keys cascade). */
export async function deleteThreads(db: Executor, threadIds: readonly string[]): Promise<number> {
  if (threadIds.length === 0) return 0;
  const deleted = await db
    .delete(threads)
    .where(inArray(threads.id, [...threadIds]))
    .returning({ id: threads.id });
  return deleted.length;
}
