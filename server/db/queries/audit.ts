import { and, desc, eq } from "drizzle-orm";
import type { Executor } from "../client";
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
