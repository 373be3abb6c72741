/**
 * What the demo identity provider adds for Harbor's own sign-in (single sign-on): a second client
 * with its own redirect URI, the standard `email` and `profile` scopes and a `groups` scope, and the
 * claims each account carries. Harbor's sign-in is first-party, so it asks for no consent screen:
 * the grant is made as the account signs in (`firstPartyGrant`), as an organization's own provider
 * would for its own applications.
 */
import type { IdpAccount } from "./identity-provider";

export interface SignInClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** The scopes the sign-in client may ask for; `groups` carries the claim Harbor maps to roles. */
export const SIGN_IN_SCOPES = ["openid", "email", "profile", "groups", "offline_access"] as const;

/** Which claims each scope releases (oidc-provider releases no claim a granted scope does not name). */
export const SCOPE_CLAIMS = {
  openid: ["sub"],
  email: ["email", "email_verified"],
  profile: ["name"],
  groups: ["groups"],
} as const;

/** The sign-in client's registration at the provider. */
export function signInClientEntry(client: SignInClient): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_secret: client.clientSecret,
    client_name: "Harbor sign-in",
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_basic",
    scope: SIGN_IN_SCOPES.join(" "),
  };
}

/** Every claim of an account; the provider keeps those the granted scopes release. */
export function accountClaims(account: IdpAccount): Record<string, unknown> {
  return {
    sub: account.id,
    email: account.email,
    email_verified: account.emailVerified ?? true,
    name: account.name,
    groups: [...(account.groups ?? [])],
  };
}

// The slice of oidc-provider's context `loadExistingGrant` reads.
interface GrantLike {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface GrantContext {
  oidc: {
    client?: { clientId: string };
    account?: { accountId: string };
    session: { grantIdFor(clientId: string): string | undefined };
    result?: { consent?: { grantId?: string } };
    requestParamOIDCScopes: Set<string>;
    provider: {
      Grant: { new (init: { accountId: string; clientId: string }): GrantLike; find(id: string): Promise<GrantLike | undefined> };
    };
  };
}

/**
 * oidc-provider's `loadExistingGrant`: as its default for every client, and for the sign-in client
 * a grant of whatever OpenID scopes it asked for, so the account goes straight back to Harbor.
 */
export function firstPartyGrant(signInClientId: string | undefined) {
  return async (ctx: GrantContext): Promise<GrantLike | undefined> => {
    const { client, account, session, result, provider } = ctx.oidc;
    if (!client) return undefined;
    const grantId = result?.consent?.grantId || session.grantIdFor(client.clientId);
    const existing = grantId ? await provider.Grant.find(grantId) : undefined;
    if (client.clientId !== signInClientId || !account) return existing;
    const grant = existing ?? new provider.Grant({ accountId: account.accountId, clientId: client.clientId });
    grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(" "));
    await grant.save();
    return grant;
  };
}
