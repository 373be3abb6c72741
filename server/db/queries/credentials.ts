import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { credentials } from "../schema";
import { type CredentialKind } from "@/server/domain";

export interface CredentialOwnerKey {
  tenantId: string;
  userId: string;
  provider: string;
}

/** Stores (or replaces) a user's sealed credential for a provider. */
export async function saveCredential(
  db: Executor,
  row: CredentialOwnerKey & { sealed: string; kind?: CredentialKind; scopes?: string | null },
): Promise<void> {
  const kind = row.kind ?? "api_key";
  await db
    .insert(credentials)
    .values({ ...row, kind })
    .onConflictDoUpdate({
      target: [credentials.tenantId, credentials.userId, credentials.provider],
      set: { sealed: row.sealed, kind, scopes: row.scopes ?? null, updatedAt: sql`now()` },
    });
}

export async function findCredential(db: Executor, owner: CredentialOwnerKey) {
  const [row] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.tenantId, owner.tenantId), eq(credentials.userId, owner.userId), eq(credentials.provider, owner.provider)))
    .limit(1);
  return row;
}

/** Removes a credential — only if still `sealed` as given, when given; returns whether one was removed. */
export async function deleteCredential(db: Executor, owner: CredentialOwnerKey, unchanged?: { sealed: string }): Promise<boolean> {
  const deleted = await db
    .delete(credentials)
    .where(
      and(
        eq(credentials.tenantId, owner.tenantId),
        eq(credentials.userId, owner.userId),
        eq(credentials.provider, owner.provider),
        unchanged ? eq(credentials.sealed, unchanged.sealed) : undefined,
      ),
    )
    .returning({ provider: credentials.provider });
  return deleted.length > 0;
}

/** A user's connected providers, without their sealed values. */
export async function listCredentials(db: Executor, owner: { tenantId: string; userId: string }) {
  return db
    .select({ provider: credentials.provider, kind: credentials.kind, scopes: credentials.scopes, updatedAt: credentials.updatedAt })
    .from(credentials)
    .where(and(eq(credentials.tenantId, owner.tenantId), eq(credentials.userId, owner.userId)))
    .orderBy(asc(credentials.provider));
}
