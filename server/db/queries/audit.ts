import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";
import { auditLog } from "../schema";

export interface AuditEntry {
  tenantId: string;
  actorId: string | null;
  action: string;
  subjectType: string;
  subjectId: string;
  outcome: string;
  details?: Record<string, unknown>;
}

export async function appendAudit(db: Executor, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values(entry);
}

export async function listAudit(db: Executor, tenantId: string, subject?: { type: string; id: string }) {
  return db
    .select()
    .from(auditLog)
    .where(
      subject
        ? and(eq(auditLog.tenantId, tenantId), eq(auditLog.subjectType, subject.type), eq(auditLog.subjectId, subject.id))
        : eq(auditLog.tenantId, tenantId),
    )
    .orderBy(desc(auditLog.id))
    .limit(200);
}

/**
 * One exported audit row, as the chain hashed it: `createdAt` is the canonical UTC text with
 * microseconds and `details` the jsonb text (numbers exactly as stored).
 */
export interface ChainedAuditRow {
  id: number;
  seq: number;
  tenantId: string;
  createdAt: string;
  actorId: string | null;
  action: string;
  subjectType: string;
  subjectId: string;
  outcome: string;
  details: string;
  prevHash: string;
  hash: string;
}

/**
 * A page of a tenant's audit chain: the contiguous stretch from its first row created at or after
 * `from` to its last row created before `to` (so a row whose transaction began just outside the
 * range but was chained inside it is not left out), after `afterSeq`, in chain order.
 */
export async function auditChainPage(
  db: Executor,
  query: { tenantId: string; from: Date; to: Date; afterSeq: number; limit: number },
): Promise<ChainedAuditRow[]> {
  const result = await db.execute(sql`
    with bounds as (
      select min(seq) as lo, max(seq) as hi from audit_log
      where tenant_id = ${query.tenantId} and created_at >= ${query.from.toISOString()}::timestamptz
        and created_at < ${query.to.toISOString()}::timestamptz
    )
    select a.id::text as id, a.seq::text as seq, a.tenant_id,
      to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
      a.actor_id, a.action, a.subject_type, a.subject_id, a.outcome, a.details::text as details, a.prev_hash, a.hash
    from audit_log a, bounds b
    where a.tenant_id = ${query.tenantId} and a.seq between b.lo and b.hi and a.seq > ${query.afterSeq}
    order by a.seq
    limit ${query.limit}`);
  const row = z.object({
    id: column.number,
    seq: column.number,
    tenant_id: z.string(),
    created_at: z.string(),
    actor_id: z.string().nullable(),
    action: z.string(),
    subject_type: z.string(),
    subject_id: z.string(),
    outcome: z.string(),
    details: z.string(),
    prev_hash: z.string(),
    hash: z.string(),
  });
  return rowsOf(result, row).map((r) => ({
    id: r.id,
    seq: r.seq,
    tenantId: r.tenant_id,
    createdAt: r.created_at,
    actorId: r.actor_id,
    action: r.action,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    outcome: r.outcome,
    details: r.details,
    prevHash: r.prev_hash,
    hash: r.hash,
  }));
}
