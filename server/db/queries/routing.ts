/**
 * Requests forwarded between instances: stored sealed, answered by the owner, deleted once read.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { routedRequests } from "../schema";

export async function storeRoutedRequest(db: Executor, row: { id: string; targetInstance: string; fromInstance: string; sealed: string }) {
  await db.insert(routedRequests).values(row);
}

/** The request addressed to `me`, if it is still there and unanswered. */
export async function routedRequestFor(db: Executor, id: string, me: string) {
  const [row] = await db
    .select()
    .from(routedRequests)
    .where(and(eq(routedRequests.id, id), eq(routedRequests.targetInstance, me), sql`${routedRequests.reply} is null`))
    .limit(1);
  return row;
}

export async function answerRoutedRequest(db: Executor, id: string, reply: Record<string, unknown>): Promise<void> {
  // The sealed request is dropped with the answer: nothing private stays behind.
  await db.update(routedRequests).set({ reply, sealed: "" }).where(eq(routedRequests.id, id));
}

/** The owner's reply, taken once (the row is deleted). */
export async function takeRoutedReply(db: Executor, id: string): Promise<Record<string, unknown> | undefined> {
  const [row] = await db
    .delete(routedRequests)
    .where(and(eq(routedRequests.id, id), sql`${routedRequests.reply} is not null`))
    .returning({ reply: routedRequests.reply });
  return row?.reply ?? undefined;
}

/** Gives up a request nobody answered in time. */
export async function dropRoutedRequest(db: Executor, id: string): Promise<void> {
  await db.delete(routedRequests).where(eq(routedRequests.id, id));
}
