/**
 * Which OpenID Connect provider signs people in, if any: the one the settings name, or — with the
 * demo accounts and no provider configured — the demo's embedded identity provider, whose issuer
 * (a loopback port) is only known once Harbor has started it. And that provider as Auth.js's
 * generic OIDC provider: discovery from the issuer, the code flow with PKCE, state and nonce.
 */
import { customFetch, type Profile } from "next-auth";
import type { OIDCConfig } from "next-auth/providers";
import { settings, type SsoSettings } from "@/server/config";
import { harbor } from "@/server/harbor";
import { SSO_PROVIDER_ID, type SsoPolicy } from "./policy";

export interface SsoProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's words: "Sign in with <name>". */
  name: string;
  scopes: readonly string[];
  policy: SsoPolicy;
  recheckSeconds: number;
  /** The demo's embedded provider (it asks for the password every time, so people can switch accounts). */
  demo: boolean;
}

/** How long any one request Auth.js makes to the provider may take. */
const PROVIDER_TIMEOUT_MS = 10_000;

const policyOf = (sso: SsoSettings): SsoPolicy => ({
  domains: sso.domains,
  roleClaim: sso.roleClaim,
  roles: sso.roles,
  linkByEmail: sso.linkByEmail,
});

/** The provider people sign in with, or undefined when single sign-on is not offered. */
export async function ssoProvider(): Promise<SsoProvider | undefined> {
  const { sso } = settings();
  if (!sso.enabled) return undefined;
  const common = { scopes: sso.scopes, policy: policyOf(sso), recheckSeconds: sso.recheckSeconds };
  if (sso.provider) return { ...sso.provider, ...common, name: sso.name ?? "SSO", demo: false };
  // The demo's provider starts with Harbor; its issuer names the port it got.
  const peers = (await harbor()).peers;
  if (!peers) return undefined;
  const { issuer } = peers.identityProvider;
  return { issuer, ...peers.signInClient, ...common, name: sso.name ?? "the demo identity provider", demo: true };
}

/** Bounds every request to the provider, so a provider that hangs fails the sign-in, not the server. */
const boundedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });

/**
 * Auth.js's generic OIDC provider for `provider`. Auth.js permits plain-http issuers itself (it passes
 * oauth4webapi's `allowInsecureRequests` on every request); Harbor's settings allow http only on a
 * loopback address, which is where the demo's provider listens.
 */
export function authJsProvider(provider: SsoProvider): OIDCConfig<Profile> {
  return {
    id: SSO_PROVIDER_ID,
    name: provider.name,
    type: "oidc",
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    checks: ["pkce", "state", "nonce"],
    authorization: { params: { scope: provider.scopes.join(" "), ...(provider.demo ? { prompt: "login" } : {}) } },
    [customFetch]: boundedFetch,
  };
}
