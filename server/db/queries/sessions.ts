/**
 * Browser sessions, so signing out ends one on the server (the cookie alone proves nothing then).
 */
import { randomUUID } from "node:crypto";
import { and, eq, isNotNull, isNull, lte, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { sessions } from "../schema";

export async function createSession(db: Executor, userId: string): Promise<string> {
  const id = randomUUID();
  await db.insert(sessions).values({ id, userId });
  return id;
}

export async function revokeSession(db: Executor, id: string): Promise<void> {
  await db
    .update(sessions)
    // An ended session keeps no provider tokens: nobody can use them later, even with the database and the secret.
    .set({ revokedAt: new Date(), ssoSealed: null })
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)));
}

/** A session opened by single sign-on: the provider's subject, and its tokens sealed for this session. */
export interface SsoSessionState {
  issuer: string;
  subject: string;
  sealed: string;
}

/** Opens a single sign-on session under `id` (the caller made it: the tokens are sealed to it), checked now. */
export async function createSsoSession(db: Executor, id: string, userId: string, sso: SsoSessionState): Promise<void> {
  await db.insert(sessions).values({
    id,
    userId,
    ssoIssuer: sso.issuer,
    ssoSubject: sso.subject,
    ssoSealed: sso.sealed,
    ssoCheckedAt: sql`now()`,
  });
}

/**
 * Takes the turn to ask the provider about an open single sign-on session last asked at or before
 * `dueBy`: a compare-and-set on the time, so one request of one instance asks, once per interval.
 */
export async function claimSsoCheck(
  db: Executor,
  sessionId: string,
  dueBy: Date,
): Promise<(SsoSessionState & { userId: string }) | undefined> {
  const [row] = await db
    .update(sessions)
    .set({ ssoCheckedAt: sql`now()` })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt), isNotNull(sessions.ssoSealed), lte(sessions.ssoCheckedAt, dueBy)))
    .returning({ userId: sessions.userId, issuer: sessions.ssoIssuer, subject: sessions.ssoSubject, sealed: sessions.ssoSealed });
  if (!row?.issuer || !row.subject || !row.sealed) return undefined;
  return { userId: row.userId, issuer: row.issuer, subject: row.subject, sealed: row.sealed };
}

/** Keeps the provider's newer tokens (a refresh may rotate the refresh token) for an open session. */
export async function saveSsoTokens(db: Executor, sessionId: string, sealed: string): Promise<void> {
  await db
    .update(sessions)
    .set({ ssoSealed: sealed })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}
