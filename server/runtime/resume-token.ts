/**
 * Resume tokens: a signed statement of which interaction may be resumed, in which identity scope
 * `(tenant, user, session = thread)`, until when. Presenting one never replaces the caller's own
 * identity: the token's scope is checked against it, so a token replayed by anyone else fails.
 */
import { createHash } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { ForbiddenError } from "./errors";

export interface ResumeScope {
  interactionId: string;
  tenantId: string;
  userId: string;
  threadId: string;
  expiresAt: Date;
}

const ISSUER = "harbor";
const AUDIENCE = "harbor:resume";

/** A key of its own, derived from the server secret, so resume tokens never verify as anything else. */
export function resumeTokenKey(serverSecret: string): Uint8Array {
  return createHash("sha256").update(`harbor.resume-token\0${serverSecret}`).digest();
}

export function signResumeToken(key: Uint8Array, scope: ResumeScope): Promise<string> {
  return new SignJWT({ tid: scope.tenantId, uid: scope.userId, sid: scope.threadId })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(scope.interactionId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime(Math.ceil(scope.expiresAt.getTime() / 1000))
    .sign(key);
}

/**
 * Checks a presented token: genuine, unexpired, for this interaction, and issued in a scope the
 * caller belongs to (the same tenant; the same user unless the caller resolves on others' behalf).
 */
export async function verifyResumeToken(
  key: Uint8Array,
  token: string,
  expected: { interactionId: string; tenantId: string; threadId: string; userId?: string },
): Promise<void> {
  const refused = new ForbiddenError("The resume token does not match this interaction and your identity.");
  // A bad signature, a wrong audience or a past expiry all mean the same to the caller.
  const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"] }).catch((error: unknown) => {
    throw Object.assign(refused, { cause: error });
  });
  const fits =
    payload.sub === expected.interactionId &&
    payload.tid === expected.tenantId &&
    payload.sid === expected.threadId &&
    (expected.userId === undefined || payload.uid === expected.userId);
  if (!fits) throw refused;
}
