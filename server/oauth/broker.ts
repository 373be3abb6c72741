/**
 * Harbor's OAuth credentials: the runtime's `CredentialBroker` (a usable access token, or where to
 * consent), plus what the callback and the connections page need. Tokens are sealed at rest per
 * (tenant, user, provider) with AES-256-GCM; they never reach a log, an event or the model.
 */
import type { Logger } from "pino";
import { z } from "zod";
import { open, seal, sealingKey } from "@/server/auth/sealing";
import type { Database } from "@/server/db";
import { deleteCredential, findCredential, listCredentials, saveCredential } from "@/server/db/queries/credentials";
import { HarborError, NotFoundError, type CredentialBroker, type CredentialOwner } from "@/server/runtime";
import { OAuthGrantError, pkceVerifierFor, type OAuthClient, type TokenSet } from "./client";
import { signState, stateKey, verifyState, type ConsentState } from "./state";

/** One configured provider: the embedded demo identity provider, or a real one from the environment. */
export interface OAuthProvider {
  id: string;
  /** Shown to users: "Connect your <name> account". */
  name: string;
  client: OAuthClient;
}

export interface BrokerDeps {
  db: Database;
  serverSecret: string;
  providers: ReadonlyMap<string, OAuthProvider>;
  /** How long a consent link stays valid (the oauth pause's own expiry). */
  consentTtlMs: number;
  log: Logger;
}

const StoredTokens = z.object({
  accessToken: z.string(),
  refreshToken: z.string().optional(),
  expiresAt: z.number().optional(),
  obtainedAt: z.number(),
});
type StoredTokens = z.infer<typeof StoredTokens>;

/**
 * Refresh a little before the provider would refuse the token, so a call does not race its expiry:
 * 30 s, or a quarter of a short-lived token's lifetime.
 */
function usable(tokens: StoredTokens): boolean {
  if (tokens.expiresAt === undefined) return true;
  const skew = Math.min(30_000, (tokens.expiresAt - tokens.obtainedAt) / 4);
  return tokens.expiresAt - skew > Date.now();
}

export function oauthBroker(deps: BrokerDeps) {
  const key = sealingKey(deps.serverSecret);
  const signingKey = stateKey(deps.serverSecret);
  // PKCE verifiers are derived from the server secret and the interaction: nothing to store.
  const verifierSecret = `${deps.serverSecret}/pkce`;
  /** One refresh at a time per credential: providers rotate refresh tokens, so two at once would revoke the grant. */
  const refreshing = new Map<string, Promise<string | null>>();

  const providerOf = (id: string): OAuthProvider => {
    const provider = deps.providers.get(id);
    if (!provider) throw new HarborError("OAUTH_FAILED", `No OAuth provider "${id}" is configured on this server.`, { provider: id });
    return provider;
  };
  const associated = (owner: CredentialOwner, provider: string) => `${owner.tenantId}/${owner.userId}/${provider}`;

  async function load(owner: CredentialOwner, provider: string): Promise<StoredTokens | null> {
    const row = await findCredential(deps.db, { ...owner, provider });
    if (!row || row.kind !== "oauth") return null;
    return StoredTokens.parse(JSON.parse(open(key, row.sealed, associated(owner, provider))));
  }

  async function store(owner: CredentialOwner, provider: string, tokens: TokenSet, previous?: StoredTokens): Promise<void> {
    const kept: StoredTokens = {
      accessToken: tokens.accessToken,
      // Providers that do not rotate refresh tokens answer a refresh without one: keep the old one.
      refreshToken: tokens.refreshToken ?? previous?.refreshToken,
      expiresAt: tokens.expiresAt,
      obtainedAt: Date.now(),
    };
    await saveCredential(deps.db, {
      ...owner,
      provider,
      kind: "oauth",
      scopes: tokens.scope ?? null,
      sealed: seal(key, JSON.stringify(kept), associated(owner, provider)),
    });
  }

  async function refresh(owner: CredentialOwner, provider: string, current: StoredTokens): Promise<string | null> {
    if (!current.refreshToken) {
      await deleteCredential(deps.db, { ...owner, provider });
      return null;
    }
    try {
      const fresh = await providerOf(provider).client.refresh(current.refreshToken);
      await store(owner, provider, fresh, current);
      return fresh.accessToken;
    } catch (error) {
      if (!(error instanceof OAuthGrantError)) {
        throw new HarborError("OAUTH_FAILED", `Refreshing the ${providerOf(provider).name} credential failed; try again later.`, { provider });
      }
      // The grant is gone (revoked at the provider, or expired): only the owner can give a new one.
      deps.log.info({ provider, tenantId: owner.tenantId, userId: owner.userId }, "an OAuth grant was refused on refresh; the owner must connect again");
      await deleteCredential(deps.db, { ...owner, provider });
      return null;
    }
  }

  const broker: CredentialBroker = {
    async accessToken(owner, provider, options = {}) {
      providerOf(provider);
      const tokens = await load(owner, provider);
      if (!tokens) return null;
      if (usable(tokens) && !options.refresh) return tokens.accessToken;
      const slot = associated(owner, provider);
      let pending = refreshing.get(slot);
      if (!pending) {
        pending = refresh(owner, provider, tokens).finally(() => refreshing.delete(slot));
        refreshing.set(slot, pending);
      }
      return pending;
    },

    async consent(owner, provider, scopes, interactionId) {
      const setup = providerOf(provider);
      const state = await signState(signingKey, { interactionId, provider, ...owner }, new Date(Date.now() + deps.consentTtlMs));
      const authorizationUrl = await setup.client.authorizationUrl({ state, codeVerifier: pkceVerifierFor(verifierSecret, interactionId), scopes });
      return { authorizationUrl, providerName: setup.name };
    },
  };

  return {
    ...broker,

    /** The claims of a callback's `state` (INVALID_INPUT when Harbor did not sign it, or it expired). */
    verifyState: (token: string): Promise<ConsentState> => verifyState(signingKey, token),

    /** Exchanges the callback's code (checking its state and PKCE verifier) and stores the tokens sealed. */
    async connect(owner: CredentialOwner, provider: string, callbackUrl: URL, state: string, interactionId: string): Promise<void> {
      const setup = providerOf(provider);
      let tokens: TokenSet;
      try {
        tokens = await setup.client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier: pkceVerifierFor(verifierSecret, interactionId) });
      } catch (error) {
        deps.log.warn({ provider, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) }, "an OAuth code exchange failed");
        throw new HarborError("OAUTH_FAILED", `${setup.name} did not accept this sign-in (the code may have been used already). Ask again from the chat.`, { provider });
      }
      await store(owner, provider, tokens);
    },

    /** The owner's connected providers (OAuth grants and API keys), never their secrets. */
    async connections(owner: CredentialOwner) {
      const rows = await listCredentials(deps.db, owner);
      return rows.map((row) => ({
        provider: row.provider,
        name: deps.providers.get(row.provider)?.name ?? (row.kind === "api_key" ? "API key" : row.provider),
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
      const tokens = await load(owner, provider);
      if (!(await deleteCredential(deps.db, { ...owner, provider }))) throw new NotFoundError("Connection");
      if (!tokens) return { revoked: false };
      try {
        await providerOf(provider).client.revoke(tokens.refreshToken ?? tokens.accessToken);
        return { revoked: true };
      } catch (error) {
        deps.log.warn({ provider, err: error instanceof Error ? error.message : String(error) }, "revoking a disconnected OAuth grant at its provider failed");
        return { revoked: false };
      }
    },
  };
}

export type OAuthBroker = ReturnType<typeof oauthBroker>;
