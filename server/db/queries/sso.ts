/**
 * Single sign-on's rows: which provider subject signs in as which user (`user_identities`), and the
 * users it creates and whose roles it keeps in step with the provider.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { rowCount, rowsOf } from "./rows";
import { tenants, userIdentities, users } from "../schema";
import { ROLES, type Role } from "@/server/domain";
import type { UserRow } from "./users";

export interface SsoUserRow extends UserRow {
  tenantSlug: string;
}

const ssoUserSqlRow = z.object({
  id: z.string(),
  tenant_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  tenant_slug: z.string(),
  linked_here: z.boolean(),
});

const toRow = (row: z.infer<typeof ssoUserSqlRow>): SsoUserRow & { linkedHere: boolean } => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  name: row.name,
  role: row.role,
  tenantSlug: row.tenant_slug,
  linkedHere: row.linked_here,
});

/** The user a provider's subject signs in as, if it signed in before. */
export async function findUserByIdentity(db: Executor, issuer: string, subject: string): Promise<SsoUserRow | undefined> {
  const result = await db.execute(sql`
    select u.id, u.tenant_id, u.email, u.name, u.role, t.slug as tenant_slug, true as linked_here
    from user_identities i join users u on u.id = i.user_id join tenants t on t.id = u.tenant_id
    where i.issuer = ${issuer} and i.subject = ${subject}`);
  const [row] = rowsOf(result, ssoUserSqlRow);
  return row && toRow(row);
}

/** A user by email, and whether some subject of `issuer` already signs in as them (`linkedHere`). */
export async function findUserByEmailAt(
  db: Executor,
  email: string,
  issuer: string,
): Promise<(SsoUserRow & { linkedHere: boolean }) | undefined> {
  const result = await db.execute(sql`
    select u.id, u.tenant_id, u.email, u.name, u.role, t.slug as tenant_slug,
      exists (select 1 from user_identities i where i.user_id = u.id and i.issuer = ${issuer}) as linked_here
    from users u join tenants t on t.id = u.tenant_id
    where u.email = ${email.trim().toLowerCase()}`);
  const [row] = rowsOf(result, ssoUserSqlRow);
  return row && toRow(row);
}

export async function findTenantIdBySlug(db: Executor, slug: string): Promise<string | undefined> {
  const [row] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, slug)).limit(1);
  return row?.id;
}

export interface NewIdentity {
  issuer: string;
  subject: string;
  userId: string;
  tenantId: string;
  email: string;
}

/** Creates a user without a password. False when the email was taken meanwhile (nothing written). */
export async function insertPasswordlessUser(
  db: Executor,
  user: { id: string; tenantId: string; email: string; name: string; role: Role },
): Promise<boolean> {
  const inserted = await db
    .insert(users)
    .values({ ...user, passwordHash: null })
    .onConflictDoNothing()
    .returning({ id: users.id });
  return inserted.length > 0;
}

/**
 * Links a subject to a user. False when the subject is linked already, or the user already has a
 * subject at this provider (one each way; nothing written).
 */
export async function insertIdentity(db: Executor, identity: NewIdentity): Promise<boolean> {
  const inserted = await db.insert(userIdentities).values(identity).onConflictDoNothing().returning({ userId: userIdentities.userId });
  return inserted.length > 0;
}

/** Notes a sign-in of a linked subject and the email the provider gave this time. */
export async function touchIdentity(db: Executor, issuer: string, subject: string, email: string): Promise<void> {
  await db
    .update(userIdentities)
    .set({ email, lastSignInAt: sql`now()` })
    .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)));
}

/** Sets a user's role if it is still `from` (a compare-and-set); answers whether it changed. */
export async function setUserRole(db: Executor, userId: string, from: Role, to: Role): Promise<boolean> {
  const result = await db.execute(sql`update users set role = ${to} where id = ${userId} and role = ${from} returning id`);
  return rowCount(result) > 0;
}
