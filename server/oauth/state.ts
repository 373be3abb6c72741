/**
 * The OAuth `state` parameter: a short JWT (HS256, key derived from the server secret for this
 * purpose alone) binding the consent to one interaction, one user of one tenant, one provider, and
 * the browser that started it (the hash of a nonce kept in that browser's cookie). The callback
 * trusts nothing in the query string that this signature does not cover.
 */
import { createHash, hkdfSync, randomBytes } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { InvalidInputError } from "@/server/runtime";

const Claims = z.object({
  iid: z.string().min(1),
  tid: z.string().min(1),
  uid: z.string().min(1),
  prv: z.string().min(1),
  nh: z.string().min(1),
});
export type ConsentState = { interactionId: string; tenantId: string; userId: string; provider: string; nonceHash: string };

/** A fresh browser nonce: kept in the starting browser's cookie, its hash in the state. */
export function newNonce(): string {
  return randomBytes(24).toString("base64url");
}

export function nonceHash(nonce: string): string {
  return createHash("sha256").update(nonce).digest("base64url");
}

const AUDIENCE = "harbor.oauth-callback";

export function stateKey(serverSecret: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", serverSecret, "harbor", "harbor.oauth-state.v1", 32));
}

export async function signState(key: Uint8Array, state: ConsentState, expiresAt: Date): Promise<string> {
  return new SignJWT({ iid: state.interactionId, tid: state.tenantId, uid: state.userId, prv: state.provider, nh: state.nonceHash })
    .setProtectedHeader({ alg: "HS256" })
    .setAudience(AUDIENCE)
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key);
}

/** The state's claims; a forged, altered or expired state is INVALID_INPUT naming `state`. */
export async function verifyState(key: Uint8Array, token: string): Promise<ConsentState> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, key, { audience: AUDIENCE, algorithms: ["HS256"] }));
  } catch (error) {
    const expired = error instanceof Error && "code" in error && error.code === "ERR_JWT_EXPIRED";
    throw new InvalidInputError("state", expired ? "this consent link expired; ask again" : "this is not a consent Harbor started");
  }
  const claims = Claims.safeParse(payload);
  if (!claims.success) throw new InvalidInputError("state", "this is not a consent Harbor started");
  return {
    interactionId: claims.data.iid,
    tenantId: claims.data.tid,
    userId: claims.data.uid,
    provider: claims.data.prv,
    nonceHash: claims.data.nh,
  };
}
