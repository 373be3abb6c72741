/**
 * Requests forwarded between instances: stored sealed, answered by the owner, deleted once read.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { rowCount, rowsOf } from "./rows";
import { routedRequests } from "../schema";

/** Stores a forwarded request and tells its target, in one statement (the notification leaves at commit). */
export async function storeRoutedRequest(db: Executor, row: { id: string; targetInstance: string; fromInstance: string; sealed: string }) {
  await db.execute(sql`
    with stored as (
      insert into routed_requests (id, target_instance, from_instance, sealed)
      values (${row.id}, ${row.targetInstance}, ${row.fromInstance}, ${row.sealed})
      returning id
    )
    select pg_notify('harbor_routes', ${row.targetInstance}::text || '|' || id) from stored`);
}

/**
 * Takes the request addressed to `me` to serve it, once: its sealed body is handed over and cleared
 * in the same statement (nothing private stays behind), which also tells the sender it is being
 * decided. Undefined when it is gone, or taken already.
 */
export async function takeRoutedRequest(
  db: Executor,
  id: string,
  me: string,
): Promise<{ sealed: string; fromInstance: string } | undefined> {
  const result = await db.execute(sql`
    with taken as (
      select id, sealed, from_instance from routed_requests
      where id = ${id} and target_instance = ${me} and sealed <> '' and reply is null
      for update
    )
    update routed_requests r set sealed = '' from taken where r.id = taken.id
    returning taken.sealed, taken.from_instance`);
  const [row] = rowsOf(result, z.object({ sealed: z.string(), from_instance: z.string() }));
  return row ? { sealed: row.sealed, fromInstance: row.from_instance } : undefined;
}

/** Requests addressed to `me` that nobody has taken yet (after a reconnect, their notifications may be lost). */
export async function untakenRoutedRequests(db: Executor, me: string): Promise<string[]> {
  const rows = await db
    .select({ id: routedRequests.id })
    .from(routedRequests)
    .where(and(eq(routedRequests.targetInstance, me), sql`${routedRequests.sealed} <> ''`));
  return rows.map((r) => r.id);
}

/** Stores the owner's answer and tells the sender, in one statement. */
export async function answerRoutedRequest(db: Executor, id: string, reply: Record<string, unknown>): Promise<void> {
  await db.execute(sql`
    with answered as (
      update routed_requests set reply = ${JSON.stringify(reply)}::jsonb where id = ${id} returning id, from_instance
    )
    select pg_notify('harbor_replies', from_instance || '|' || id) from answered`);
}

/** The owner's reply, taken once (the row is deleted). */
export async function takeRoutedReply(db: Executor, id: string): Promise<Record<string, unknown> | undefined> {
  const [row] = await db
    .delete(routedRequests)
    .where(and(eq(routedRequests.id, id), sql`${routedRequests.reply} is not null`))
    .returning({ reply: routedRequests.reply });
  return row?.reply ?? undefined;
}

/** Gives up a request its owner has not taken: true when it was dropped (the owner will never decide it). */
export async function dropUntakenRoutedRequest(db: Executor, id: string): Promise<boolean> {
  const rows = await db
    .delete(routedRequests)
    .where(and(eq(routedRequests.id, id), sql`${routedRequests.sealed} <> ''`))
    .returning({ id: routedRequests.id });
  return rows.length > 0;
}

/**
 * Gives every request addressed to `me` that it has not taken back to its sender, undecided (the
 * instance is stopping and serves no more): each sender decides its request itself. Returns how many.
 */
export async function returnUntakenRoutedRequests(db: Executor, me: string, reply: Record<string, unknown>): Promise<number> {
  const result = await db.execute(sql`
    with returned as (
      update routed_requests set reply = ${JSON.stringify(reply)}::jsonb
      where target_instance = ${me} and sealed <> '' and reply is null
      returning id, from_instance
    )
    select pg_notify('harbor_replies', from_instance || '|' || id) from returned`);
  return rowCount(result);
}
