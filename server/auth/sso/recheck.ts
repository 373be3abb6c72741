/**
 * Roles follow the provider between sign-ins: a single sign-on session whose provider was last
 * asked more than HARBOR_SSO_RECHECK_S ago asks it again — a refresh of the session's tokens, then
 * userinfo — and writes the role its claims give now. A provider that refuses (the account is gone,
 * the grant revoked) ends the session. A provider that does not answer changes nothing: the last
 * known role stays, and the next interval asks again.
 *
 * Off the hot path: a session is asked at most once per interval across all instances (the turn is
 * a compare-and-set on the session row), and a request waits for the answer at most `WAIT_MS` — the
 * check goes on without it and applies to the requests after.
 */
import type { Executor } from "@/server/db";
import { revokeSession, saveSsoTokens, claimSsoCheck } from "@/server/db/queries/sessions";
import { findUserByIdentity } from "@/server/db/queries/sso";
import { settings } from "@/server/config";
import { log } from "@/server/log";
import { authSecret } from "../secret";
import { cachedSsoClient, SsoProviderRefused, type SsoClient } from "./oidc-client";
import { roleFromClaims } from "./policy";
import { ssoProvider, type SsoProvider } from "./provider";
import { openTokens, sealTokens, type SsoTokens } from "./session-tokens";
import { applyRole, audit } from "./sign-in";

/** How long a request waits for its session's re-check before it goes on with the role it has. */
const WAIT_MS = 2_000;

/** Checks running in this process, by session, and until when requests wait for them. */
const running = new Map<string, { done: Promise<void>; waitUntil: number }>();

/**
 * Re-checks a single sign-on session with its provider when it is due (`checkedAt` null: a password
 * session, never). Answers true when a check finished in time, so the caller reads the user again.
 * Requests that arrive while a check runs wait for it too, but all only until `WAIT_MS` after it began.
 */
export async function recheckIfDue(db: Executor, sessionId: string, checkedAt: Date | null): Promise<boolean> {
  if (!checkedAt) return false;
  const intervalMs = settings().sso.recheckSeconds * 1000;
  let check = running.get(sessionId);
  if (!check && (intervalMs === 0 || checkedAt.getTime() > Date.now() - intervalMs)) return false;
  if (!check) {
    const done = recheckSession(db, sessionId, new Date(Date.now() - intervalMs))
      .catch((error: unknown) => log.error({ err: error }, "single sign-on: the re-check failed"))
      .finally(() => running.delete(sessionId));
    check = { done, waitUntil: Date.now() + WAIT_MS };
    running.set(sessionId, check);
  }
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, check.waitUntil - Date.now()))));
  const finished = await Promise.race([check.done.then(() => true as const), waited]);
  clearTimeout(timer);
  return finished;
}

/** Takes this session's turn (if due by `dueBy`) and asks the provider; see the file's comment. */
export async function recheckSession(db: Executor, sessionId: string, dueBy: Date, resolve = ssoProvider): Promise<void> {
  const claimed = await claimSsoCheck(db, sessionId, dueBy);
  if (!claimed) return;
  const provider = await resolve();
  const secret = authSecret();
  const tokens = openTokens(secret, sessionId, claimed.sealed);
  // Another provider now (or none, or the demo's restarted on another port), or tokens that no longer open: nothing can vouch for the session.
  if (!provider || provider.issuer !== claimed.issuer || !tokens) return endSession(db, sessionId, claimed, "provider_changed");
  let answer: { claims: Record<string, unknown>; tokens: SsoTokens } | undefined;
  try {
    // A rotated refresh token is kept as soon as the provider hands it out, even if userinfo then fails.
    const keep = (fresh: SsoTokens) => saveSsoTokens(db, sessionId, sealTokens(secret, sessionId, fresh));
    answer = await askProvider(cachedSsoClient(provider), tokens, claimed.subject, keep);
  } catch (error) {
    if (error instanceof SsoProviderRefused) return endSession(db, sessionId, claimed, "refused");
    log.warn(
      { issuer: provider.issuer, reason: error instanceof Error ? error.name : "unknown" },
      "single sign-on: provider unavailable, the role stays",
    );
    return;
  }
  if (!answer) return;
  await applyClaims(db, provider, claimed, answer.claims);
}

/**
 * The subject's claims now, with the tokens that got them: a refresh (which also proves the grant
 * still stands), then userinfo. Without a refresh token, userinfo with the access token while it
 * lasts; after that, nothing (undefined) until the next sign-in.
 */
async function askProvider(
  client: SsoClient,
  tokens: SsoTokens,
  subject: string,
  keep: (fresh: SsoTokens) => Promise<void>,
): Promise<{ claims: Record<string, unknown>; tokens: SsoTokens } | undefined> {
  if (tokens.refreshToken) {
    const refreshed = await client.refresh(tokens.refreshToken);
    await keep(refreshed.tokens);
    const claims = await client.userinfo(refreshed.tokens.accessToken, subject);
    return { claims: { ...refreshed.idClaims, ...claims }, tokens: refreshed.tokens };
  }
  if (tokens.expiresAt !== undefined && tokens.expiresAt <= Date.now()) return undefined;
  return { claims: await client.userinfo(tokens.accessToken, subject), tokens };
}

async function applyClaims(
  db: Executor,
  provider: SsoProvider,
  session: { issuer: string; subject: string },
  claims: Record<string, unknown>,
): Promise<void> {
  const user = await findUserByIdentity(db, session.issuer, session.subject);
  if (!user) return;
  await applyRole(db, user, { ...session, role: roleFromClaims(claims, provider.policy) }, "recheck");
}

async function endSession(
  db: Executor,
  sessionId: string,
  session: { userId: string; issuer: string; subject: string },
  reason: string,
): Promise<void> {
  await revokeSession(db, sessionId);
  const user = await findUserByIdentity(db, session.issuer, session.subject);
  if (user) await audit(db, user.id, { ...session, tenantId: user.tenantId }, "sso.session_end", "ended", { reason });
  log.info({ userId: session.userId, reason }, "single sign-on ended a session");
}
