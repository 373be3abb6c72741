/**
 * Harbor's OAuth credentials: the runtime's `CredentialBroker` (a usable access token, or where to
 * consent), plus what the consent routes and the connections page need. Tokens are sealed at rest
 * per (tenant, user, provider) with AES-256-GCM; they never reach a log, an event or the model.
 *
 * The consent URL a pause carries is Harbor's own (`/api/oauth/connect/<interaction>`, for the
 * signed-in owner only): it sets a nonce cookie in the owner's browser and sends it on to the
 * provider with a state bound to the interaction, the owner, the provider and that nonce — so a
 * callback can only complete in the browser that started it, and the provider's URL never appears
 * in an event, a log or the database.
 */
import type { Logger } from "pino";
import { z } from "zod";
import { open, seal, sealingKey } from "@/server/crypto/sealing";
import type { Database } from "@/server/db";
import { deleteCredential, findCredential, listCredentials, saveCredential } from "@/server/db/queries/credentials";
import { HarborError, NotFoundError, type CredentialBroker, type CredentialOwner } from "@/server/runtime";
import { OAuthGrantError, pkceVerifierFor, type OAuthClient, type TokenSet } from "./client";
import { newNonce, nonceHash, signState, stateKey, verifyState, type ConsentState } from "./state";

/** One configured provider: the embedded demo identity provider, or a real one from the environment. */
export interface OAuthProvider {
  id: string;
  /** Shown to users: "Connect your <name> account". */
  name: string;
  /** The authorization server's issuer: an MCP server that names it in its metadata gets this provider's tokens. */
  issuer: string;
  client: OAuthClient;
}

export interface BrokerDeps {
  db: Database;
  serverSecret: string;
  providers: ReadonlyMap<string, OAuthProvider>;
  /** Harbor's own consent URL for an interaction (where the owner's browser starts). */
  connectUrl(interactionId: string): string;
  log: Logger;
}

const StoredTokens = z.object({
  accessToken: z.string(),
  refreshToken: z.string().optional(),
  expiresAt: z.number().optional(),
  obtainedAt: z.number(),
});
type StoredTokens = z.infer<typeof StoredTokens>;

/** A stored credential as the broker reads it: its tokens, the scopes granted, and its sealed form (to detect a concurrent change). */
interface Held {
  tokens: StoredTokens;
  scopes: string[];
  sealed: string;
}

/**
 * Refresh a little before the provider would refuse the token, so a call does not race its expiry:
 * 30 s, or a quarter of a short-lived token's lifetime.
 */
function usable(tokens: StoredTokens): boolean {
  if (tokens.expiresAt === undefined) return true;
  const skew = Math.min(30_000, (tokens.expiresAt - tokens.obtainedAt) / 4);
  return tokens.expiresAt - skew > Date.now();
}

const STATE_GRACE_MS = 3600_000;

export function oauthBroker(deps: BrokerDeps) {
  const key = sealingKey(deps.serverSecret);
  const signingKey = stateKey(deps.serverSecret);
  // PKCE verifiers are derived from the server secret and the interaction: nothing to store.
  const verifierSecret = `${deps.serverSecret}/pkce`;
  /** One lookup-and-refresh at a time per credential: providers rotate refresh tokens, so two at once would revoke the grant. */
  const inFlight = new Map<string, Promise<string | null>>();

  const providerOf = (id: string): OAuthProvider => {
    const provider = deps.providers.get(id);
    if (!provider) throw new HarborError("OAUTH_FAILED", `No OAuth provider "${id}" is configured on this server.`, { provider: id });
    return provider;
  };
  const associated = (owner: CredentialOwner, provider: string) => `${owner.tenantId}/${owner.userId}/${provider}`;

  async function load(owner: CredentialOwner, provider: string): Promise<Held | null> {
    const row = await findCredential(deps.db, { ...owner, provider });
    if (!row || row.kind !== "oauth") return null;
    let tokens: StoredTokens;
    try {
      tokens = StoredTokens.parse(JSON.parse(open(key, row.sealed, associated(owner, provider))));
    } catch (error) {
      // Sealed with another server secret, or damaged: unusable, so the owner is asked to connect again.
      deps.log.warn(
        { provider, tenantId: owner.tenantId, userId: owner.userId, err: error instanceof Error ? error.name : "unknown" },
        "a stored OAuth credential cannot be opened",
      );
      return null;
    }
    return { tokens, scopes: row.scopes ? row.scopes.split(" ") : [], sealed: row.sealed };
  }

  async function store(owner: CredentialOwner, provider: string, fresh: TokenSet, previous?: Held): Promise<void> {
    const kept: StoredTokens = {
      accessToken: fresh.accessToken,
      // Providers that do not rotate refresh tokens answer a refresh without one: keep the old one.
      refreshToken: fresh.refreshToken ?? previous?.tokens.refreshToken,
      expiresAt: fresh.expiresAt,
      obtainedAt: Date.now(),
    };
    await saveCredential(deps.db, {
      ...owner,
      provider,
      kind: "oauth",
      // A refresh answer may omit the scope: the grant's scopes did not change.
      scopes: fresh.scope ?? previous?.scopes.join(" ") ?? null,
      sealed: seal(key, JSON.stringify(kept), associated(owner, provider)),
    });
  }

  async function refresh(owner: CredentialOwner, provider: string, held: Held): Promise<string | null> {
    const setup = providerOf(provider);
    if (!held.tokens.refreshToken) {
      await deleteCredential(deps.db, { ...owner, provider }, { sealed: held.sealed });
      return null;
    }
    try {
      const fresh = await setup.client.refresh(held.tokens.refreshToken);
      await store(owner, provider, fresh, held);
      return fresh.accessToken;
    } catch (error) {
      if (!(error instanceof OAuthGrantError)) {
        throw new HarborError("OAUTH_FAILED", `Refreshing the ${setup.name} credential failed; try again later.`, { provider });
      }
      // The grant is gone (revoked at the provider, or expired): only the owner can give a new one.
      // Deleted only if unchanged meanwhile (a new consent may just have replaced it).
      deps.log.info(
        { provider, tenantId: owner.tenantId, userId: owner.userId },
        "an OAuth grant was refused on refresh; the owner must connect again",
      );
      await deleteCredential(deps.db, { ...owner, provider }, { sealed: held.sealed });
      return null;
    }
  }

  async function accessToken(
    owner: CredentialOwner,
    provider: string,
    scopes: readonly string[],
    forceRefresh: boolean,
  ): Promise<string | null> {
    const held = await load(owner, provider);
    // No credential, or one granting less than the tool needs: the owner consents (again).
    if (!held || !scopes.every((s) => held.scopes.includes(s))) return null;
    if (usable(held.tokens) && !forceRefresh) return held.tokens.accessToken;
    return refresh(owner, provider, held);
  }

  const broker: CredentialBroker = {
    accessToken(owner, provider, scopes, options = {}) {
      providerOf(provider);
      const slot = `${associated(owner, provider)}/${options.refresh ? "refresh" : "use"}`;
      let pending = inFlight.get(slot);
      if (!pending) {
        pending = accessToken(owner, provider, scopes, options.refresh ?? false).finally(() => inFlight.delete(slot));
        inFlight.set(slot, pending);
      }
      return pending;
    },

    consent: (provider, interactionId) => ({ authorizationUrl: deps.connectUrl(interactionId), providerName: providerOf(provider).name }),

    providerForIssuer(issuers) {
      const wanted = new Set(issuers.map(sameIssuer));
      return [...deps.providers.values()].find((p) => wanted.has(sameIssuer(p.issuer)))?.id;
    },
  };

  return {
    ...broker,

    /**
     * The provider's consent page for an open consent of `owner`, with the browser nonce whose hash
     * the state carries (the caller keeps it in that browser's cookie until `expiresAt`).
     */
    async begin(owner: CredentialOwner, consent: { interactionId: string; provider: string; scopes: readonly string[]; expiresAt: Date }) {
      const setup = providerOf(consent.provider);
      const nonce = newNonce();
      // The state outlives the pause by a grace period: a late callback then meets the pause's own
      // expiry (EXPIRED, and its run ends) rather than an unreadable link.
      const state = await signState(
        signingKey,
        { ...owner, interactionId: consent.interactionId, provider: consent.provider, nonceHash: nonceHash(nonce) },
        new Date(consent.expiresAt.getTime() + STATE_GRACE_MS),
      );
      let providerUrl: string;
      try {
        providerUrl = await setup.client.authorizationUrl({
          state,
          codeVerifier: pkceVerifierFor(verifierSecret, consent.interactionId),
          scopes: consent.scopes,
        });
      } catch (error) {
        deps.log.warn(
          { provider: consent.provider, err: error instanceof Error ? error.message : String(error) },
          "the OAuth provider could not be reached",
        );
        throw new HarborError("OAUTH_FAILED", `${setup.name} cannot be reached right now; try Connect again in a moment.`, {
          provider: consent.provider,
        });
      }
      return { providerUrl, nonce };
    },

    /** A provider's name for people ("demo calendar"); its id when it is not configured. */
    providerName: (id: string): string => deps.providers.get(id)?.name ?? id,

    /** The claims of a callback's `state` (INVALID_INPUT when Harbor did not sign it, or it expired). */
    verifyState: (token: string): Promise<ConsentState> => verifyState(signingKey, token),

    /** Whether `nonce` (from the callback request's cookie) is the one the state was bound to. */
    sameBrowser: (state: ConsentState, nonce: string | undefined): boolean => nonce !== undefined && nonceHash(nonce) === state.nonceHash,

    /** Exchanges the callback's code (checking its state and PKCE verifier) and stores the tokens sealed. */
    async connect(owner: CredentialOwner, provider: string, callbackUrl: URL, state: string, interactionId: string): Promise<void> {
      const setup = providerOf(provider);
      let tokens: TokenSet;
      try {
        tokens = await setup.client.exchangeCode({
          callbackUrl,
          expectedState: state,
          codeVerifier: pkceVerifierFor(verifierSecret, interactionId),
        });
      } catch (error) {
        deps.log.warn(
          { provider, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) },
          "an OAuth code exchange failed",
        );
        throw new HarborError(
          "OAUTH_FAILED",
          `${setup.name} did not accept this sign-in (the code may have been used already). Press Connect again.`,
          { provider },
        );
      }
      await store(owner, provider, tokens);
    },

    /** The owner's connected providers (OAuth grants and API keys), never their secrets. */
    async connections(owner: CredentialOwner) {
      const rows = await listCredentials(deps.db, owner);
      return rows.map((row) => ({
        provider: row.provider,
        name: row.kind === "api_key" ? "API key" : (deps.providers.get(row.provider)?.name ?? row.provider),
        kind: row.kind,
        scopes: row.scopes ? row.scopes.split(" ") : [],
        connectedAt: row.updatedAt.toISOString(),
      }));
    },

    /**
     * Forgets the owner's credential for `provider`; an OAuth grant is also revoked at the provider
     * (`revoked` says whether that worked — the local copy is gone either way).
     */
    async disconnect(owner: CredentialOwner, provider: string): Promise<{ revoked: boolean }> {
      const held = await load(owner, provider);
      if (!(await deleteCredential(deps.db, { ...owner, provider }))) throw new NotFoundError("Connection");
      const setup = deps.providers.get(provider);
      if (!held || !setup) return { revoked: false };
      try {
        await setup.client.revoke(held.tokens.refreshToken ?? held.tokens.accessToken);
        return { revoked: true };
      } catch (error) {
        deps.log.warn(
          { provider, err: error instanceof Error ? error.message : String(error) },
          "revoking a disconnected OAuth grant at its provider failed",
        );
        return { revoked: false };
      }
    },
  };
}

export type OAuthBroker = ReturnType<typeof oauthBroker>;

/** Issuers compare without a trailing slash (metadata documents differ on it). */
function sameIssuer(issuer: string): string {
  return issuer.replace(/\/+$/, "");
}
