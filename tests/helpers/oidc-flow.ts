/**
 * A single sign-on at the demo identity provider without a browser: the code flow with PKCE, state
 * and nonce as Auth.js runs it, up to what Auth.js hands Harbor's callbacks — the provider's
 * `account` (its tokens, `providerAccountId` = the subject) and the ID token's claims.
 */
import * as oauth from "oauth4webapi";
import { ConsentBrowser, formAction } from "./consent";

export interface FlowClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: readonly string[];
}

export interface SignedInAtProvider {
  account: { providerAccountId: string; access_token: string; refresh_token?: string; expires_at?: number };
  idClaims: Record<string, unknown>;
}

export async function signInAtProvider(client: FlowClient, person: { email: string; password: string }): Promise<SignedInAtProvider> {
  const issuer = new URL(client.issuer);
  const http = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...http }));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: client.scopes.join(" "),
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }))
    url.searchParams.set(key, value);

  // Harbor's sign-in is first-party at the demo provider: after the login form, straight back with a code.
  const browser = new ConsentBrowser(client.redirectUri);
  const login = await browser.go(url.href);
  const back = await browser.go(new URL(formAction(login.html, "Sign in"), login.url).href, { method: "POST", form: person });
  if (!back.url.href.startsWith(client.redirectUri)) throw new Error(`the provider did not come back: ${back.res.status} ${back.html}`);

  const oauthClient: oauth.Client = { client_id: client.clientId };
  const params = oauth.validateAuthResponse(as, oauthClient, back.url, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    oauthClient,
    oauth.ClientSecretBasic(client.clientSecret),
    params,
    client.redirectUri,
    verifier,
    http,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, oauthClient, response, { expectedNonce: nonce, requireIdToken: true });
  const idClaims = { ...oauth.getValidatedIdTokenClaims(tokens)! };
  return {
    account: {
      providerAccountId: String(idClaims.sub),
      access_token: tokens.access_token,
      ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
      ...(tokens.expires_in ? { expires_at: Math.floor(Date.now() / 1000) + tokens.expires_in } : {}),
    },
    idClaims,
  };
}
