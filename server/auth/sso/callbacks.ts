/**
 * Single sign-on's two steps inside Auth.js's callback, after Auth.js checked the provider's answer
 * (state, nonce, PKCE, the ID token):
 * - `ssoSignIn` (its `signIn` callback): the claims — the ID token's, and userinfo's over them —
 *   decide who this is; a refusal sends the browser back to the sign-in page with its reason.
 * - `ssoSession` (its `jwt` callback): the server-side session for that user, holding the
 *   provider's tokens sealed, so the role can be asked again later (recheck.ts).
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Executor } from "@/server/db";
import { createSsoSession } from "@/server/db/queries/sessions";
import { findUserByIdentity } from "@/server/db/queries/sso";
import { log } from "@/server/log";
import { cachedSsoClient } from "./oidc-client";
import type { SsoProvider } from "./provider";
import { sealTokens } from "./session-tokens";
import { completeSsoSignIn } from "./sign-in";

/** What Auth.js hands the callbacks about the provider's answer (its `Account`), as far as Harbor reads it. */
const AccountTokens = z.object({
  providerAccountId: z.string().min(1),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  /** Seconds since epoch. */
  expires_at: z.number().optional(),
});

/** The sign-in page, saying why. */
const refused = (code: string) => `/signin?error=${encodeURIComponent(code)}`;

/** Auth.js's signIn callback for single sign-on: true, or the sign-in page with the refusal. */
export async function ssoSignIn(db: Executor, provider: SsoProvider, account: unknown, idClaims: unknown): Promise<true | string> {
  const tokens = AccountTokens.safeParse(account);
  const id = z.looseObject({ sub: z.string().min(1) }).safeParse(idClaims);
  if (!tokens.success || !id.success || id.data.sub !== tokens.data.providerAccountId) return refused("SsoClaims");
  // userinfo's claims over the ID token's (both vouched for: the token verified, userinfo checked to be this subject's).
  const info = await userinfo(provider, tokens.data.access_token, id.data.sub);
  const claims = { ...id.data, ...info, ...emailPair(id.data, info), sub: id.data.sub };
  const result = await completeSsoSignIn(db, { issuer: provider.issuer, policy: provider.policy, claims });
  return result.ok ? true : refused(result.refusal);
}

/**
 * An email and whether it was verified come as a pair, from one source: userinfo's when it names
 * an email, else the ID token's — never one's address with the other's `email_verified`.
 */
export function emailPair(idToken: Record<string, unknown>, info: Record<string, unknown>): Record<string, unknown> {
  const source = info.email !== undefined ? info : idToken;
  return { email: source.email, email_verified: source.email_verified };
}

/**
 * userinfo's claims (many providers release the email and groups only there), or none when it
 * cannot be asked: the ID token's claims then decide alone.
 */
async function userinfo(provider: SsoProvider, accessToken: string, subject: string): Promise<Record<string, unknown>> {
  try {
    return await cachedSsoClient(provider).userinfo(accessToken, subject);
  } catch (error) {
    log.warn({ issuer: provider.issuer, reason: error instanceof Error ? error.name : "unknown" }, "single sign-on: userinfo failed");
    return {};
  }
}

/** Auth.js's jwt callback for single sign-on: the user the subject signed in as and a new session for them. */
export async function ssoSession(
  db: Executor,
  provider: SsoProvider,
  serverSecret: string,
  account: unknown,
): Promise<{ uid: string; sid: string } | null> {
  const tokens = AccountTokens.safeParse(account);
  if (!tokens.success) return null;
  const { providerAccountId: subject, access_token, refresh_token, expires_at } = tokens.data;
  const user = await findUserByIdentity(db, provider.issuer, subject);
  if (!user) return null;
  const sid = randomUUID();
  const sealed = sealTokens(serverSecret, sid, {
    accessToken: access_token,
    ...(refresh_token ? { refreshToken: refresh_token } : {}),
    ...(expires_at ? { expiresAt: expires_at * 1000 } : {}),
  });
  await createSsoSession(db, sid, user.id, { issuer: provider.issuer, subject, sealed });
  return { uid: user.id, sid };
}
