/**
 * Harbor's own requests to the single sign-on provider, besides the sign-in dance Auth.js does:
 * the userinfo endpoint (the claims, at sign-in and at each re-check) and a refresh of the session's
 * tokens. The protocol work is oauth4webapi's, every request is bounded by a timeout, and tokens
 * never reach a log or an error message.
 */
import * as oauth from "oauth4webapi";
import type { SsoTokens } from "./session-tokens";

export interface SsoClientConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The provider refused the session's grant or token: the account is gone or its access was revoked. */
export class SsoProviderRefused extends Error {
  override readonly name = "SsoProviderRefused";
}

export interface SsoClient {
  /** The claims userinfo answers for `accessToken`, checked to be `subject`'s. */
  userinfo(accessToken: string, subject: string): Promise<Record<string, unknown>>;
  /** New tokens for a refresh token, and the claims of the new ID token if the provider sent one. */
  refresh(refreshToken: string): Promise<{ tokens: SsoTokens; idClaims: Record<string, unknown> | undefined }>;
}

const isLoopback = (hostname: string) => hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname);

export function ssoClient(config: SsoClientConfig, timeoutMs = 5_000): SsoClient {
  const issuer = new URL(config.issuer);
  // Plain http only for a provider on this machine (the settings refuse any other http issuer).
  const insecure = issuer.protocol === "http:" && isLoopback(issuer.hostname);
  const http = () => ({ ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}), signal: AbortSignal.timeout(timeoutMs) });
  const client: oauth.Client = { client_id: config.clientId };
  const clientAuth = oauth.ClientSecretBasic(config.clientSecret);

  let metadata: Promise<oauth.AuthorizationServer> | undefined;
  function server(): Promise<oauth.AuthorizationServer> {
    if (!metadata) {
      const pending = oauth
        .discoveryRequest(issuer, { algorithm: "oidc", ...http() })
        .then((response) => oauth.processDiscoveryResponse(issuer, response));
      metadata = pending;
      // Forgotten on failure, so an outage does not outlive itself here.
      pending.catch(() => {
        if (metadata === pending) metadata = undefined;
      });
    }
    return metadata;
  }

  return {
    async userinfo(accessToken, subject) {
      const as = await server();
      try {
        const response = await oauth.userInfoRequest(as, client, accessToken, http());
        return await oauth.processUserInfoResponse(as, client, subject, response);
      } catch (error) {
        if (error instanceof oauth.WWWAuthenticateChallengeError && error.status === 401)
          throw new SsoProviderRefused("userinfo refused the access token");
        throw error;
      }
    },

    async refresh(refreshToken) {
      const as = await server();
      let answer: oauth.TokenEndpointResponse;
      try {
        const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, http());
        answer = await oauth.processRefreshTokenResponse(as, client, response);
      } catch (error) {
        if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant")
          throw new SsoProviderRefused("the refresh token was refused");
        throw error;
      }
      const tokens: SsoTokens = {
        accessToken: answer.access_token,
        // A provider that does not rotate refresh tokens keeps the one in use.
        refreshToken: answer.refresh_token ?? refreshToken,
        ...(typeof answer.expires_in === "number" ? { expiresAt: Date.now() + answer.expires_in * 1000 } : {}),
      };
      const idClaims = oauth.getValidatedIdTokenClaims(answer);
      return { tokens, idClaims: idClaims ? { ...idClaims } : undefined };
    },
  };
}

/** One client per provider and process: discovery is asked once. */
const clients = new Map<string, SsoClient>();
export function cachedSsoClient(config: SsoClientConfig): SsoClient {
  const key = `${config.issuer}\n${config.clientId}`;
  let found = clients.get(key);
  if (!found) clients.set(key, (found = ssoClient(config)));
  return found;
}
