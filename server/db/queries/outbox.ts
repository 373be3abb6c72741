import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { outbox } from "../schema";
import { type OutboxKind } from "@/server/domain";

export type OutboxRow = typeof outbox.$inferSelect;

/**
 * Records a side effect once per tool call: a second write for the same call returns the first row
 * instead of repeating the effect.
 */
export async function recordOutbox(
  db: Executor,
  row: {
    id: string;
    tenantId: string;
    userId: string;
    runId: string;
    toolCallId: string;
    kind: OutboxKind;
    details: Record<string, unknown>;
    approvedBy: string | null;
  },
): Promise<OutboxRow> {
  const [inserted] = await db.insert(outbox).values(row).onConflictDoNothing().returning();
  if (inserted) return inserted;
  const [existing] = await db
    .select()
    .from(outbox)
    .where(and(eq(outbox.runId, row.runId), eq(outbox.toolCallId, row.toolCallId)))
    .limit(1);
  if (!existing) throw new Error(`outbox row for tool call ${row.toolCallId} neither inserted nor found`);
  return existing;
}

export async function listOutbox(db: Executor, owner: { tenantId: string; userId: string }): Promise<OutboxRow[]> {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.tenantId, owner.tenantId), eq(outbox.userId, owner.userId)))
    .orderBy(desc(outbox.createdAt), desc(sql`${outbox.id}`))
    .limit(200);
}
