import { and, asc, count, desc, eq } from "drizzle-orm";
import type { Executor } from "../client";
import { messages, threads } from "../schema";
import { type MessageRole, type StoredToolCall } from "@/server/domain";

export interface ThreadRow {
  id: string;
  tenantId: string;
  ownerId: string;
  title: string;
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

export async function listThreads(
  db: Executor,
  owner: { tenantId: string; ownerId: string },
  limit = 100,
): Promise<Omit<ThreadRow, "state">[]> {
  return db
    .select({
      id: threads.id,
      tenantId: threads.tenantId,
      ownerId: threads.ownerId,
      title: threads.title,
      createdAt: threads.createdAt,
      updatedAt: threads.updatedAt,
    })
    .from(threads)
    .where(and(eq(threads.tenantId, owner.tenantId), eq(threads.ownerId, owner.ownerId)))
    .orderBy(desc(threads.updatedAt))
    .limit(limit);
}

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
    .where(eq(messages.threadId, threadId))
    .orderBy(asc(messages.position));
}

/** How many messages a thread holds. */
export async function countMessages(db: Executor, threadId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(messages).where(eq(messages.threadId, threadId));
  return row?.n ?? 0;
}
