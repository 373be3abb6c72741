import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { credentials } from "../schema";

/** Stores (or replaces) a user's sealed credential for a provider. */
export async function saveCredential(
  db: Executor,
  row: { tenantId: string; userId: string; provider: string; sealed: string },
): Promise<void> {
  await db
    .insert(credentials)
    .values(row)
    .onConflictDoUpdate({
      target: [credentials.tenantId, credentials.userId, credentials.provider],
      set: { sealed: row.sealed, updatedAt: sql`now()` },
    });
}

export async function findCredential(db: Executor, owner: { tenantId: string; userId: string; provider: string }) {
  const [row] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.tenantId, owner.tenantId), eq(credentials.userId, owner.userId), eq(credentials.provider, owner.provider)))
    .limit(1);
  return row;
}
