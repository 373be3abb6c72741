/**
 * Retention's statements: each tenant's policy, the conversations and audit rows past it (deleted
 * in batches, never a conversation whose run is still queued, running or waiting), the audit's
 * anchors, one user's conversations erased, and the cluster-wide lease that lets one instance sweep.
 */
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { auditAnchors, tenantPolicies } from "../schema";
import { column, rowCount, rowsOf } from "./rows";
import { saveTenantPolicy } from "./tenant-policies";

/** Runs in these statuses hold their conversation: it is never deleted under them. */
const LIVE = sql`('queued', 'running', 'paused')`;

export interface RetentionPolicy {
  /** Null: the deployment's default. */
  conversationDays: number | null;
  auditDays: number | null;
  updatedBy: string | null;
  updatedAt: Date | null;
}

export async function findPolicy(db: Executor, tenantId: string): Promise<RetentionPolicy> {
  const [row] = await db.select().from(tenantPolicies).where(eq(tenantPolicies.tenantId, tenantId));
  return {
    conversationDays: row?.conversationRetentionDays ?? null,
    auditDays: row?.auditRetentionDays ?? null,
    updatedBy: row?.updatedBy ?? null,
    updatedAt: row?.updatedAt ?? null,
  };
}

export async function savePolicy(
  db: Executor,
  tenantId: string,
  policy: { conversationDays: number | null; auditDays: number | null },
  userId: string,
): Promise<void> {
  await saveTenantPolicy(
    db,
    tenantId,
    { conversationRetentionDays: policy.conversationDays, auditRetentionDays: policy.auditDays },
    userId,
  );
}

/** Every tenant's effective days (its own, else the defaults); 0 keeps everything. */
export async function effectivePolicies(
  db: Executor,
  defaults: { conversationDays: number; auditDays: number },
): Promise<{ tenantId: string; conversationDays: number; auditDays: number }[]> {
  const result = await db.execute(sql`
    select t.id as tenant_id,
      coalesce(p.conversation_retention_days, ${defaults.conversationDays}) as conversation_days,
      coalesce(p.audit_retention_days, ${defaults.auditDays}) as audit_days
    from tenants t left join tenant_policies p on p.tenant_id = t.id`);
  return rowsOf(result, z.object({ tenant_id: z.string(), conversation_days: column.number, audit_days: column.number })).map((r) => ({
    tenantId: r.tenant_id,
    conversationDays: r.conversation_days,
    auditDays: r.audit_days,
  }));
}

/**
 * Deletes up to `limit` of a tenant's conversations untouched since `before` (oldest first) whose
 * runs are all over, with everything that hangs on them (messages, runs, events, interactions,
 * jobs, snapshot states: the foreign keys cascade). `ownerId` narrows it to one user's, of any age.
 */
export async function deleteConversations(
  db: Executor,
  target: { tenantId: string; before?: Date; ownerId?: string },
  limit: number,
): Promise<number> {
  const result = await db.execute(sql`
    delete from threads where id in (
      select t.id from threads t
      where t.tenant_id = ${target.tenantId}
        ${target.before ? sql`and t.updated_at < ${target.before.toISOString()}` : sql``}
        ${target.ownerId ? sql`and t.owner_id = ${target.ownerId}` : sql``}
        and not exists (select 1 from runs r where r.thread_id = t.id and r.status in ${LIVE})
      order by t.updated_at
      limit ${limit}
      for update of t skip locked)
    returning id`);
  return rowCount(result);
}

/** A user's conversations that a live run holds (erasure leaves them). */
export async function countHeldConversations(db: Executor, tenantId: string, ownerId: string): Promise<number> {
  const result = await db.execute(sql`
    select count(*) as n from threads t
    where t.tenant_id = ${tenantId} and t.owner_id = ${ownerId}
      and exists (select 1 from runs r where r.thread_id = t.id and r.status in ${LIVE})`);
  return rowsOf(result, z.object({ n: column.number }))[0]?.n ?? 0;
}

/** Deletes up to `limit` of a tenant's webhook messages older than `before` that are over (delivered or given up). */
export async function deleteDeliveries(db: Executor, tenantId: string, before: Date, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from webhook_deliveries where id in (
      select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
      where w.tenant_id = ${tenantId} and d.created_at < ${before.toISOString()} and d.status in ('delivered', 'failed')
      limit ${limit})
    returning id`);
  return rowCount(result);
}

/** What the next sweep would delete for a tenant: conversations past `before` and not held, and the oldest kept. */
export async function conversationsPast(db: Executor, tenantId: string, before: Date): Promise<{ count: number; oldest: Date | null }> {
  const result = await db.execute(sql`
    select
      (select count(*) from threads t where t.tenant_id = ${tenantId} and t.updated_at < ${before.toISOString()}
        and not exists (select 1 from runs r where r.thread_id = t.id and r.status in ${LIVE})) as n,
      (select min(updated_at) from threads where tenant_id = ${tenantId}) as oldest`);
  const [row] = rowsOf(result, z.object({ n: column.number, oldest: column.date.nullable() }));
  return { count: row?.n ?? 0, oldest: row?.oldest ?? null };
}

/** The last audit row of a tenant created before `before`: where the chain will enter once it and the rows before it go. */
export async function auditCut(
  db: Executor,
  tenantId: string,
  before: Date,
): Promise<{ seq: number; hash: string; count: number } | undefined> {
  const result = await db.execute(sql`
    select seq, hash, (select count(*) from audit_log c where c.tenant_id = a.tenant_id and c.seq <= a.seq) as n
    from audit_log a where a.tenant_id = ${tenantId} and a.created_at < ${before.toISOString()}
    order by seq desc limit 1`);
  const [row] = rowsOf(result, z.object({ seq: column.number, hash: z.string(), n: column.number }));
  return row ? { seq: row.seq, hash: row.hash, count: row.n } : undefined;
}

export async function insertAnchor(db: Executor, anchor: { tenantId: string; seq: number; hash: string; removed: number }): Promise<void> {
  await db.insert(auditAnchors).values(anchor).onConflictDoNothing();
}

/** The anchor the tenant's chain enters at now (the latest), if its oldest rows were ever removed. */
export async function latestAnchor(db: Executor, tenantId: string): Promise<{ seq: number; hash: string; createdAt: Date } | undefined> {
  const [row] = await db
    .select({ seq: auditAnchors.seq, hash: auditAnchors.hash, createdAt: auditAnchors.createdAt })
    .from(auditAnchors)
    .where(eq(auditAnchors.tenantId, tenantId))
    .orderBy(sql`${auditAnchors.seq} desc`)
    .limit(1);
  return row;
}

/**
 * Deletes up to `limit` of a tenant's audit rows at or below `seq`, oldest first — allowed by the
 * append-only trigger only in a transaction that says it is retention's, and only below an anchor.
 */
export async function deleteAuditUpTo(db: Executor, tenantId: string, seq: number, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('harbor.audit_retention', 'on', true)`);
    const result = await tx.execute(sql`
      delete from audit_log where id in (
        select id from audit_log where tenant_id = ${tenantId} and seq <= ${seq} order by seq limit ${limit})
      returning id`);
    return rowCount(result);
  });
}

/**
 * Takes a cluster-wide chore for `leaseMs` when it is due (last run longer than `everyMs` ago) and
 * nobody holds it: true for the one instance that got it.
 */
export async function claimChore(db: Executor, name: string, holder: string, everyMs: number, leaseMs: number): Promise<boolean> {
  await db.execute(sql`insert into maintenance (name) values (${name}) on conflict (name) do nothing`);
  const result = await db.execute(sql`
    update maintenance set holder = ${holder}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
    where name = ${name}
      and (lease_until is null or lease_until < now())
      and (last_run_at is null or last_run_at < now() - ${everyMs} * interval '1 millisecond')
    returning name`);
  return rowCount(result) === 1;
}

/** Ends a chore's turn: when it ran, how it went, and the lease let go. */
export async function finishChore(db: Executor, name: string, holder: string, result: Record<string, unknown>): Promise<void> {
  await db.execute(sql`
    update maintenance set holder = null, lease_until = null, last_run_at = now(), last_result = ${JSON.stringify(result)}::jsonb
    where name = ${name} and holder = ${holder}`);
}

export async function findChore(db: Executor, name: string): Promise<{ lastRunAt: Date | null; lastResult: unknown } | undefined> {
  const result = await db.execute(sql`select last_run_at, last_result from maintenance where name = ${name}`);
  const [row] = rowsOf(result, z.object({ last_run_at: column.date.nullable(), last_result: column.json }));
  return row ? { lastRunAt: row.last_run_at, lastResult: row.last_result } : undefined;
}

/** The tenant's users with how many conversations each has (what erasing one would remove). */
export async function usersWithConversations(
  db: Executor,
  tenantId: string,
): Promise<{ userId: string; email: string; name: string; conversations: number }[]> {
  const result = await db.execute(sql`
    select u.id, u.email, u.name, (select count(*) from threads t where t.owner_id = u.id and t.tenant_id = u.tenant_id) as n
    from users u where u.tenant_id = ${tenantId} order by u.email`);
  return rowsOf(result, z.object({ id: z.string(), email: z.string(), name: z.string(), n: column.number })).map((r) => ({
    userId: r.id,
    email: r.email,
    name: r.name,
    conversations: r.n,
  }));
}
