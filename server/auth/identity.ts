/**
 * THE one place where a request becomes an `Identity`: from `Authorization: Bearer <api token>`
 * or from the Auth.js session cookie. The tRPC context, every route handler and every page use it.
 * The user row is read on each request so that revoked tokens, ended sessions, deleted users and
 * role changes (also those a single sign-on provider makes) take effect at once — except where the request's first statement is a write that
 * checks the credential itself (`rememberedIdentityFrom`), which spares that read.
 */
import { createHash } from "node:crypto";
import { getToken } from "next-auth/jwt";
import type { Executor } from "@/server/db";
import { findUserBySession, findUserByTokenHash, type UserRow } from "@/server/db/queries/users";
import type { CredentialRef } from "@/server/domain";
import { hashToken, rolesOf, TOKEN_PREFIX, type Identity, type VerifiedIdentity } from "@/server/runtime";
import { authSecret } from "./secret";
import { recheckIfDue } from "./sso/recheck";

const SECURE_SESSION_COOKIE = "__Secure-authjs.session-token";

/** A user looked up, the credential that named them, and until when it may be remembered. */
interface Found {
  user: UserRow;
  credential: CredentialRef;
  /** A session's JWT expiry bounds how long it is remembered. */
  until: number;
}

const toIdentity = (user: UserRow): VerifiedIdentity => ({ tenantId: user.tenantId, userId: user.id, roles: rolesOf(user.role) });

/** How long an identity is remembered, and how many: its credential is still checked by each write made with it. */
const REMEMBER_MS = 60_000;
const REMEMBER_MAX = 10_000;

async function lookUp(db: Executor, headers: Headers): Promise<Found | null> {
  const authorization = headers.get("authorization");
  if (authorization) {
    // Explicit credentials that fail are a failure: no fall-back to the cookie.
    const [scheme, token] = authorization.split(" ");
    if (scheme?.toLowerCase() !== "bearer" || !token?.startsWith(TOKEN_PREFIX)) return null;
    const tokenHash = hashToken(token);
    const user = await findUserByTokenHash(db, tokenHash);
    return user ? { user, credential: { kind: "token", tokenHash }, until: Date.now() + REMEMBER_MS } : null;
  }
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  const session = await getToken({
    req: { headers },
    secret: authSecret(),
    secureCookie: cookie.includes(SECURE_SESSION_COOKIE),
  });
  const userId = session?.uid;
  const sessionId = session?.sid;
  // A session must still be open on the server: signing out ends it for this cookie too.
  if (typeof userId !== "string" || typeof sessionId !== "string") return null;
  let user = await findUserBySession(db, userId, sessionId);
  if (!user) return null;
  // A single sign-on session asks its provider again now and then (sso/recheck.ts): when that
  // finished in time, this request already sees what it changed (a role, or the session ended).
  if (await recheckIfDue(db, sessionId, user.ssoCheckedAt)) {
    user = await findUserBySession(db, userId, sessionId);
    if (!user) return null;
  }
  const expires = typeof session?.exp === "number" ? session.exp * 1000 : Date.now();
  return {
    user,
    credential: { kind: "session", userId, sessionId },
    until: Math.min(Date.now() + REMEMBER_MS, expires),
  };
}

/** The identity behind a request's headers, or null when it carries none (or an invalid one). */
export async function identityFrom(db: Executor, headers: Headers): Promise<VerifiedIdentity | null> {
  const found = await lookUp(db, headers);
  return found ? toIdentity(found.user) : null;
}

/** Remembered identities by a hash of the credential that carried them (never the credential itself). */
const remembered = new Map<string, { identity: Identity; until: number }>();

function credentialKey(headers: Headers): string | undefined {
  // As lookUp reads them: an empty Authorization header is no credential, the cookie is.
  const carried = headers.get("authorization") || headers.get("cookie");
  return carried ? createHash("sha256").update(carried).digest("base64url") : undefined;
}

/**
 * The identity behind a request, remembered from an earlier request with the same credential
 * when there is one — marked `unverified`, so the run's first write checks the credential in the
 * same statement and refuses with `StaleCredentialError` when it no longer holds. Looked up (and
 * remembered) otherwise, or when `fresh`. Only for requests whose first statement is that write.
 */
export async function rememberedIdentityFrom(db: Executor, headers: Headers, options: { fresh?: boolean } = {}): Promise<Identity | null> {
  const key = credentialKey(headers);
  if (!key) return null;
  const hit = options.fresh ? undefined : remembered.get(key);
  if (hit && hit.until > Date.now()) {
    // Most recently used last: the oldest entry is the one dropped when full.
    remembered.delete(key);
    remembered.set(key, hit);
    return hit.identity;
  }
  remembered.delete(key);
  const found = await lookUp(db, headers);
  if (!found) return null;
  const identity = toIdentity(found.user);
  remembered.set(key, {
    identity: { ...identity, unverified: { credential: found.credential, role: found.user.role } },
    until: found.until,
  });
  if (remembered.size > REMEMBER_MAX) remembered.delete(remembered.keys().next().value!);
  return identity;
}
