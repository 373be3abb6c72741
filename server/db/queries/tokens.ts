import { and, desc, eq, isNull } from "drizzle-orm";
import type { Executor } from "../client";
import { apiTokens } from "../schema";

export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

const tokenColumns = {
  id: apiTokens.id,
  name: apiTokens.name,
  prefix: apiTokens.prefix,
  createdAt: apiTokens.createdAt,
  revokedAt: apiTokens.revokedAt,
  expiresAt: apiTokens.expiresAt,
};

export async function insertToken(
  db: Executor,
  row: { id: string; tenantId: string; userId: string; name: string; tokenHash: string; prefix: string; expiresAt: Date },
): Promise<TokenRow> {
  const [created] = await db.insert(apiTokens).values(row).returning(tokenColumns);
  if (!created) throw new Error("insert into api_tokens returned no row");
  return created;
}

export async function listTokens(db: Executor, owner: { tenantId: string; userId: string }): Promise<TokenRow[]> {
  return db
    .select(tokenColumns)
    .from(apiTokens)
    .where(and(eq(apiTokens.tenantId, owner.tenantId), eq(apiTokens.userId, owner.userId)))
    .orderBy(desc(apiTokens.createdAt));
}

/** Revokes one of the owner's tokens; returns false when the owner has no such unrevoked token. */
export async function revokeToken(db: Executor, owner: { tenantId: string; userId: string }, tokenId: string): Promise<boolean> {
  const revoked = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(apiTokens.id, tokenId),
        eq(apiTokens.tenantId, owner.tenantId),
        eq(apiTokens.userId, owner.userId),
        isNull(apiTokens.revokedAt),
      ),
    )
    .returning({ id: apiTokens.id });
  return revoked.length === 1;
}
