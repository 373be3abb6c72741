import { and, eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";
import { tenants, users } from "../schema";
import { ROLES, type CredentialCheck, type Role } from "@/server/domain";

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

/**
 * Identity lookups run on every request, so they are plain SQL: on PGlite the query builder's
 * result mapping costs more than the query itself (measured ~2.4 ms against ~1 ms).
 */
const userSqlRow = z.object({ id: z.string(), tenant_id: z.string(), email: z.string(), name: z.string(), role: z.enum(ROLES) });

async function oneUser(db: Executor, query: SQL): Promise<UserRow | undefined> {
  const [row] = rowsOf(await db.execute(query), userSqlRow);
  return row && { id: row.id, tenantId: row.tenant_id, email: row.email, name: row.name, role: row.role };
}

/**
 * What makes a credential live, in one place for the lookups and for `credentialHoldsFor`: the user
 * (`u`) of an unrevoked, unexpired token, or of an open session. Each value is a parameter or, in a
 * statement over many rows, a column.
 */
type Value = string | SQL;
const liveTokenUser = (tokenHash: Value) => sql`api_tokens t join users u on u.id = t.user_id and u.tenant_id = t.tenant_id
  where t.token_hash = ${tokenHash} and t.revoked_at is null and (t.expires_at is null or t.expires_at > now())`;
const openSessionUser = (userId: Value, sessionId: Value) => sql`sessions s join users u on u.id = s.user_id
  where s.id = ${sessionId} and s.user_id = ${userId} and s.revoked_at is null`;

/** A session's user, and when its single sign-on provider was last asked about them (null: a password session). */
export type SessionUserRow = UserRow & { ssoCheckedAt: Date | null };

const sessionUserSqlRow = userSqlRow.extend({ sso_checked_at: column.date.nullable() });

/** The user of an unrevoked session (one query: the session check costs nothing extra). */
export async function findUserBySession(db: Executor, userId: string, sessionId: string): Promise<SessionUserRow | undefined> {
  const query = sql`select u.id, u.tenant_id, u.email, u.name, u.role, s.sso_checked_at from ${openSessionUser(userId, sessionId)}`;
  const [row] = rowsOf(await db.execute(query), sessionUserSqlRow);
  return row && { id: row.id, tenantId: row.tenant_id, email: row.email, name: row.name, role: row.role, ssoCheckedAt: row.sso_checked_at };
}

export async function findUserWithPasswordByEmail(
  db: Executor,
  email: string,
): Promise<(UserRow & { passwordHash: string | null; tenantSlug: string }) | undefined> {
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
export function findUserByTokenHash(db: Executor, tokenHash: string): Promise<UserRow | undefined> {
  return oneUser(db, sql`select u.id, u.tenant_id, u.email, u.name, u.role from ${liveTokenUser(tokenHash)}`);
}

/** The columns `credentialHoldsFor` reads: `credentialColumns` names them, `credentialValues` fills them. */
const credentialColumns = ["check_role", "token_hash", "session_user_id", "session_id"] as const;
/** `credentialColumns` with their types, for a column definition list (`jsonRows`). */
export const credentialColumnTypes = credentialColumns.map((column) => `${column} text`).join(", ");

/** One row's values for `credentialColumns` (all null: looked up, nothing to check). */
export function credentialValues(check: CredentialCheck | undefined): Record<(typeof credentialColumns)[number], string | null> {
  const credential = check?.credential;
  return {
    check_role: check?.role ?? null,
    token_hash: credential?.kind === "token" ? credential.tokenHash : null,
    session_user_id: credential?.kind === "session" ? credential.userId : null,
    session_id: credential?.kind === "session" ? credential.sessionId : null,
  };
}

/**
 * A condition that holds, for each row of a statement over many callers, while the credential
 * behind a remembered identity is live — the token unrevoked and unexpired, the session open — and
 * its user still this tenant's, in this role. Part of the first write made on that identity's
 * behalf, so the write happens only if it holds. `row` holds `credentialColumns` and the caller's
 * `tenant_id` and `user_id`; a row whose identity was looked up (no role to check) holds.
 */
export function credentialHoldsFor(row: string): SQL {
  const column = (name: string) => sql.raw(`${row}.${name}`);
  const theirs = sql`u.id = ${column("user_id")} and u.tenant_id = ${column("tenant_id")} and u.role = ${column("check_role")}`;
  return sql`(${column("check_role")} is null
    or (${column("token_hash")} is not null and exists (select 1 from ${liveTokenUser(column("token_hash"))} and ${theirs}))
    or (${column("session_id")} is not null and exists (select 1 from ${openSessionUser(column("session_user_id"), column("session_id"))} and ${theirs})))`;
}

/** Whether a user of this id belongs to the tenant (another tenant's is as good as none). */
export async function findUserInTenant(db: Executor, tenantId: string, userId: string): Promise<{ id: string } | undefined> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
  return row;
}
