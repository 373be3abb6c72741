/**
 * Harbor's OAuth 2.0 client for one provider: the authorization code flow with PKCE, refresh and
 * revocation. The protocol work is oauth4webapi's; this module chooses its options, caches the
 * provider's metadata and turns its errors into the few Harbor acts on.
 *
 * Tokens pass through here but are never logged or put into error messages.
 */
import { createHmac } from "node:crypto";
import * as oauth from "oauth4webapi";
import { log } from "@/server/log";

export interface OAuthProviderConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: string[];
}

export interface TokenSet {
  accessToken: string;
  /** Absent from a refresh when the provider keeps the current refresh token in use. */
  refreshToken?: string;
  /** ms since epoch */
  expiresAt?: number;
  scope?: string;
}

export interface OAuthClient {
  /**
   * The provider's authorization URL for the code flow with PKCE (S256): `state` and `codeVerifier`
   * are the caller's; `scopes` (default: the configured ones) are what the tool asking needs.
   */
  authorizationUrl(input: { state: string; codeVerifier: string; scopes?: readonly string[] }): Promise<string>;
  /** Completes the callback: checks `state` matches, exchanges the code with the verifier. `callbackUrl` is the full URL the provider redirected to. */
  exchangeCode(input: { callbackUrl: URL; expectedState: string; codeVerifier: string }): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
  /** Best effort at the provider's revocation endpoint; throws on transport failure. */
  revoke(token: string): Promise<void>;
}

/** Thrown by refresh/exchangeCode when the provider answers invalid_grant (revoked/expired grant, used code). */
export class OAuthGrantError extends Error {
  override readonly name = "OAuthGrantError";
}

/** The provider answered an error (e.g. access_denied on the callback): carries the OAuth error code. */
export class OAuthProviderError extends Error {
  override readonly name = "OAuthProviderError";
  constructor(
    readonly error: string,
    description?: string,
  ) {
    super(description ? `${error}: ${description}` : error);
  }
}

/**
 * The callback is not a valid answer to Harbor's request: its `state` differs (a forged or
 * crossed callback), it names another issuer, or it lacks a code. Nothing was sent to the provider.
 */
export class OAuthCallbackError extends Error {
  override readonly name = "OAuthCallbackError";
}

/**
 * A PKCE code_verifier derived from a server secret and something that identifies one
 * authorization attempt, so Harbor can recompute it at the callback instead of storing it.
 * HMAC-SHA256 gives 32 bytes, 43 base64url characters: the shortest verifier RFC 7636 allows,
 * with 256 bits of secret-dependent entropy.
 */
export function pkceVerifierFor(secret: string, bindingId: string): string {
  return createHmac("sha256", secret).update(`harbor-oauth-pkce:${bindingId}`).digest("base64url");
}

/** How long one request to the provider may take. */
const REQUEST_TIMEOUT_MS = 10_000;

export function oauthClient(config: OAuthProviderConfig): OAuthClient {
  const issuer = new URL(config.issuer);
  // Plain http is tolerated only for a provider on this machine (the embedded demo provider).
  const insecure = issuer.protocol === "http:" && isLoopback(issuer.hostname);
  if (issuer.protocol !== "https:" && !insecure) {
    throw new Error(`OAuth issuer must use https (or http on a loopback address): ${issuer.origin}`);
  }
  // Every request to the provider is bounded: a provider that hangs fails the step, never the caller.
  const http = () => ({ ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const client: oauth.Client = { client_id: config.clientId };
  const clientAuth = oauth.ClientSecretBasic(config.clientSecret);

  let metadata: Promise<oauth.AuthorizationServer> | undefined;
  function server(): Promise<oauth.AuthorizationServer> {
    if (!metadata) {
      const pending = oauth
        .discoveryRequest(issuer, { algorithm: "oidc", ...http() })
        .then((response) => oauth.processDiscoveryResponse(issuer, response));
      metadata = pending;
      // A failed discovery is forgotten so the next call tries again; callers still see the failure.
      pending.catch(() => {
        if (metadata === pending) metadata = undefined;
      });
    }
    return metadata;
  }

  return {
    async authorizationUrl({ state, codeVerifier, scopes = config.scopes }) {
      const as = await server();
      if (!as.authorization_endpoint) throw new Error(`${issuer.origin} has no authorization endpoint`);
      const url = new URL(as.authorization_endpoint);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("client_id", config.clientId);
      url.searchParams.set("redirect_uri", config.redirectUri);
      url.searchParams.set("scope", scopes.join(" "));
      url.searchParams.set("state", state);
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
      url.searchParams.set("code_challenge_method", "S256");
      // OpenID Connect honours offline_access (a refresh token) only with prompt=consent.
      if (scopes.includes("offline_access")) url.searchParams.set("prompt", "consent");
      return url.href;
    },

    async exchangeCode({ callbackUrl, expectedState, codeVerifier }) {
      const as = await server();
      let params: URLSearchParams;
      try {
        // Checks iss and state before looking at an error, so a forged error is refused as forged.
        params = oauth.validateAuthResponse(as, client, callbackUrl, expectedState);
      } catch (error) {
        if (error instanceof oauth.AuthorizationResponseError) throw new OAuthProviderError(error.error, error.error_description);
        // oauth4webapi's messages name the problem, never the parameter values.
        throw new OAuthCallbackError(error instanceof Error ? error.message : "invalid authorization response");
      }
      return tokenEndpoint(async () => {
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          clientAuth,
          params,
          config.redirectUri,
          codeVerifier,
          http(),
        );
        return oauth.processAuthorizationCodeResponse(as, client, response);
      });
    },

    async refresh(refreshToken) {
      const as = await server();
      return tokenEndpoint(async () => {
        const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, http());
        return oauth.processRefreshTokenResponse(as, client, response);
      });
    },

    async revoke(token) {
      const as = await server();
      if (!as.revocation_endpoint) {
        log.info({ issuer: issuer.origin }, "OAuth provider offers no revocation; nothing to revoke");
        return;
      }
      // Transport failures throw from here: the caller may want to retry.
      const response = await oauth.revocationRequest(as, client, clientAuth, token, http());
      try {
        await oauth.processRevocationResponse(response);
      } catch (error) {
        // The provider answered but refused: best effort, so note it and carry on.
        log.warn({ issuer: issuer.origin, status: response.status, reason: errorCode(error) }, "OAuth token revocation refused");
      }
    },
  };
}

/** Runs one token endpoint exchange and maps its answer to a TokenSet or to Harbor's errors. */
async function tokenEndpoint(exchange: () => Promise<oauth.TokenEndpointResponse>): Promise<TokenSet> {
  let answer: oauth.TokenEndpointResponse;
  try {
    answer = await exchange();
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      if (error.error === "invalid_grant") throw new OAuthGrantError(error.error_description ?? "the grant is invalid, expired or revoked");
      throw new OAuthProviderError(error.error, error.error_description);
    }
    if (error instanceof oauth.WWWAuthenticateChallengeError) {
      const challenge = error.cause[0]?.parameters;
      throw new OAuthProviderError(challenge?.error ?? `http_${error.status}`, challenge?.error_description);
    }
    throw error;
  }
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiresAt: typeof answer.expires_in === "number" ? Date.now() + answer.expires_in * 1000 : undefined,
    scope: answer.scope,
  };
}

function errorCode(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return error.error;
  return error instanceof Error ? error.message : "unknown";
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}
