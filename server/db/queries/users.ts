import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../client";
import { apiTokens, tenants, users, type Role } from "../schema";

export interface UserRow {
  id: string;
  tenantId: string;
  email: string;
  name: string;
  role: Role;
}

const userColumns = {
  id: users.id,
  tenantId: users.tenantId,
  email: users.email,
  name: users.name,
  role: users.role,
};

export async function findUserById(db: Executor, userId: string): Promise<UserRow | undefined> {
  const [row] = await db.select(userColumns).from(users).where(eq(users.id, userId)).limit(1);
  return row;
}

export async function findUserWithPasswordByEmail(
  db: Executor,
  email: string,
): Promise<(UserRow & { passwordHash: string; tenantSlug: string }) | undefined> {
  const [row] = await db
    .select({ ...userColumns, passwordHash: users.passwordHash, tenantSlug: tenants.slug })
    .from(users)
    .innerJoin(tenants, eq(tenants.id, users.tenantId))
    .where(eq(users.email, email.trim().toLowerCase()))
    .limit(1);
  return row;
}

export async function findUserProfile(
  db: Executor,
  userId: string,
): Promise<(UserRow & { tenantSlug: string; tenantName: string }) | undefined> {
  const [row] = await db
    .select({ ...userColumns, tenantSlug: tenants.slug, tenantName: tenants.name })
    .from(users)
    .innerJoin(tenants, eq(tenants.id, users.tenantId))
    .where(eq(users.id, userId))
    .limit(1);
  return row;
}

/** The owner of an unrevoked API token with this hash. */
export async function findUserByTokenHash(db: Executor, tokenHash: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select(userColumns)
    .from(apiTokens)
    .innerJoin(users, and(eq(users.id, apiTokens.userId), eq(users.tenantId, apiTokens.tenantId)))
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
    .limit(1);
  return row;
}
