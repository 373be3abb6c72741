/**
 * THE one place where a request becomes an `Identity`: from `Authorization: Bearer <api token>`
 * or from the Auth.js session cookie. The tRPC context, every route handler and every page use it.
 * The user row is read on each request so that revoked tokens, ended sessions, deleted users and
 * role changes take effect at once.
 */
import { getToken } from "next-auth/jwt";
import type { Executor } from "@/server/db";
import { findUserBySession, findUserByTokenHash, type UserRow } from "@/server/db/queries/users";
import { hashToken, rolesOf, TOKEN_PREFIX, type Identity } from "@/server/runtime";
import { authSecret } from "./secret";

const SECURE_SESSION_COOKIE = "__Secure-authjs.session-token";

function toIdentity(user: UserRow | undefined): Identity | null {
  return user ? { tenantId: user.tenantId, userId: user.id, roles: rolesOf(user.role) } : null;
}

/** The identity behind a request's headers, or null when it carries none (or an invalid one). */
export async function identityFrom(db: Executor, headers: Headers): Promise<Identity | null> {
  const authorization = headers.get("authorization");
  if (authorization) {
    // Explicit credentials that fail are a failure: no fall-back to the cookie.
    const [scheme, token] = authorization.split(" ");
    if (scheme?.toLowerCase() !== "bearer" || !token?.startsWith(TOKEN_PREFIX)) return null;
    return toIdentity(await findUserByTokenHash(db, hashToken(token)));
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
  return toIdentity(await findUserBySession(db, userId, sessionId));
}
