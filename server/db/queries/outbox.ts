import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { outbox } from "../schema";

export type OutboxRow = typeof outbox.$inferSelect;

export async function listOutbox(db: Executor, owner: { tenantId: string; userId: string }): Promise<OutboxRow[]> {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.tenantId, owner.tenantId), eq(outbox.userId, owner.userId)))
    .orderBy(desc(outbox.createdAt), desc(sql`${outbox.id}`))
    .limit(200);
}
