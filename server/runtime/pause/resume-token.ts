/**
 * Resume tokens: a signed statement of which interaction may be resumed, in which identity scope
 * `(tenant, user, session = thread)`, until when. Presenting one never replaces the caller's own
 * identity: the token's scope is checked against it, so a token replayed by anyone else fails.
 */
import { createHash, createHmac } from "node:crypto";
import { jwtVerify } from "jose";
import { ForbiddenError } from "../errors";

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

/**
 * A compact HS256 JWT, signed here with node:crypto rather than jose: jose signs through WebCrypto,
 * whose asynchronous job cost more of the server's main thread than the rest of a park's own code,
 * and every park signs one. It is a plain JWT — jose checks it (verifyResumeToken), and the tests
 * check jose accepts what this signs.
 */
export function signResumeToken(key: Uint8Array, scope: ResumeScope): string {
  const exp = Math.ceil(scope.expiresAt.getTime() / 1000);
  // jose's signer refused a token that can never verify; so does this one.
  if (!Number.isSafeInteger(exp)) throw new Error("a resume token needs a valid expiry");
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString("base64url");
  const claims = {
    tid: scope.tenantId,
    uid: scope.userId,
    sid: scope.threadId,
    sub: scope.interactionId,
    iss: ISSUER,
    aud: AUDIENCE,
    exp,
  };
  const signed = `${encode({ alg: "HS256" })}.${encode(claims)}`;
  return `${signed}.${createHmac("sha256", key).update(signed).digest("base64url")}`;
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
