import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { outboxDetailsCodec } from "../codecs/records";
import { outbox } from "../schema";

/** An outbox record as read: its details decoded (codecs/records.ts). */
export type OutboxRow = Omit<typeof outbox.$inferSelect, "details" | "detailsVersion"> & { details: Record<string, unknown> };

export async function listOutbox(db: Executor, owner: { tenantId: string; userId: string }): Promise<OutboxRow[]> {
  const rows = await db
    .select()
    .from(outbox)
    .where(and(eq(outbox.tenantId, owner.tenantId), eq(outbox.userId, owner.userId)))
    .orderBy(desc(outbox.createdAt), desc(sql`${outbox.id}`))
    .limit(200);
  return rows.map(({ details, detailsVersion, ...row }) => ({ ...row, details: outboxDetailsCodec.decode(details, detailsVersion) }));
}
