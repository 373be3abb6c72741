import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { withBrowserOrigin } from "@/server/auth/browser-origin";
import { readSettings } from "@/server/config";
import { roleFromClaims, SsoClaims, tenantSlugFor, verifiedEmail } from "@/server/auth/sso/policy";
import { emailPair } from "@/server/auth/sso/callbacks";
import { signInErrorSentence } from "@/server/auth/sso/refusals";
import { openTokens, sealTokens } from "@/server/auth/sso/session-tokens";

const postgres = { DATABASE_URL: "postgres://x/y", AUTH_SECRET: "a-long-enough-secret" };
const provider = { HARBOR_SSO_ISSUER: "https://id.example.com/", HARBOR_SSO_CLIENT_ID: "harbor", HARBOR_SSO_CLIENT_SECRET: "s3cret" };

describe("single sign-on settings", () => {
  it("use the demo's provider and mapping with the demo accounts, and offer nothing without them", () => {
    const demo = readSettings({}).sso;
    expect(demo).toMatchObject({
      provider: undefined,
      enabled: true,
      name: "the demo identity provider",
      domains: { "acme.test": "acme", "globex.test": "globex" },
      roleClaim: "groups",
      roles: { "harbor-admins": "admin", "harbor-approvers": "approver" },
      recheckSeconds: 300,
    });
    expect(demo.scopes).toContain("groups");
    expect(readSettings(postgres).sso).toMatchObject({ enabled: false, domains: {}, roles: {} });
    expect(readSettings({}).passwordSignIn).toBe(true);
  });

  it("take a provider as issuer, client id and secret together, with its domains and roles", () => {
    const s = readSettings({
      ...postgres,
      ...provider,
      HARBOR_SSO_NAME: "Okta",
      HARBOR_SSO_DOMAINS: " ACME.com = acme , globex.co.uk=globex",
      HARBOR_SSO_ROLE_CLAIM: "realm_access.roles",
      HARBOR_SSO_ROLES: "harbor-admins=admin,ops=approver",
      HARBOR_SSO_RECHECK_S: "60",
      HARBOR_PASSWORD_SIGNIN: "0",
    });
    expect(s.sso).toMatchObject({
      provider: { issuer: "https://id.example.com", clientId: "harbor", clientSecret: "s3cret" },
      enabled: true,
      name: "Okta",
      scopes: ["openid", "email", "profile", "offline_access"],
      domains: { "acme.com": "acme", "globex.co.uk": "globex" },
      roleClaim: "realm_access.roles",
      roles: { "harbor-admins": "admin", ops: "approver" },
      recheckSeconds: 60,
    });
    expect(s.passwordSignIn).toBe(false);
  });

  it("refuse half a provider, an http issuer off this machine, no domains, bad mappings, and no way to sign in", () => {
    const domains = { HARBOR_SSO_DOMAINS: "acme.com=acme" };
    expect(() => readSettings({ HARBOR_SSO_ISSUER: "https://id.example.com" })).toThrow(/go together/);
    expect(() => readSettings({ ...provider, ...domains, HARBOR_SSO_ISSUER: "http://id.example.com" })).toThrow(/https/);
    expect(readSettings({ ...provider, ...domains, HARBOR_SSO_ISSUER: "http://127.0.0.1:9000" }).sso.provider?.issuer).toBe(
      "http://127.0.0.1:9000",
    );
    expect(() => readSettings({ ...provider })).toThrow(/HARBOR_SSO_DOMAINS must name/);
    expect(() => readSettings({ ...provider, HARBOR_SSO_DOMAINS: "acme" })).toThrow(/HARBOR_SSO_DOMAINS/);
    expect(() => readSettings({ ...provider, ...domains, HARBOR_SSO_ROLES: "admins=owner" })).toThrow(/HARBOR_SSO_ROLES/);
    expect(() => readSettings({ ...provider, ...domains, HARBOR_SSO_SCOPES: "email profile" })).toThrow(/openid/);
    expect(() => readSettings({ ...postgres, HARBOR_PASSWORD_SIGNIN: "0" })).toThrow(/nobody could sign in/);
  });
});

describe("single sign-on's mapping", () => {
  const policy = {
    domains: { "acme.com": "acme" },
    roleClaim: "groups",
    roles: { admins: "admin", approvers: "approver" },
    linkByEmail: false,
  } as const;

  it("maps an email's domain (any case) to its tenant, and nothing else", () => {
    expect(tenantSlugFor("dave@ACME.com", policy)).toBe("acme");
    expect(tenantSlugFor("dave@sub.acme.com", policy)).toBeUndefined();
    expect(tenantSlugFor("dave@constructor", policy)).toBeUndefined();
  });

  it("takes the email only when the provider says it verified it", () => {
    const parse = (claims: object) => verifiedEmail(SsoClaims.parse({ sub: "s", email: "Dave@Acme.com", ...claims }));
    expect(parse({ email_verified: true })).toBe("dave@acme.com");
    expect(parse({ email_verified: "true" })).toBe("dave@acme.com");
    expect(parse({ email_verified: false })).toBeUndefined();
    expect(parse({})).toBeUndefined();
  });

  it("gives the highest mapped role, reading a nested claim by its path", () => {
    expect(roleFromClaims({ groups: ["approvers", "admins"] }, policy)).toBe("admin");
    expect(roleFromClaims({ groups: "approvers" }, policy)).toBe("approver");
    expect(roleFromClaims({ groups: ["__proto__", "x"] }, policy)).toBe("member");
    expect(roleFromClaims({ realm_access: { roles: ["admins"] } }, { ...policy, roleClaim: "realm_access.roles" })).toBe("admin");
    expect(roleFromClaims({ "https://example.com/groups": ["admins"] }, { ...policy, roleClaim: "https://example.com/groups" })).toBe(
      "admin",
    );
  });

  it("says each error in a fixed sentence, never the query's words", () => {
    expect(signInErrorSentence("SsoDomain", "Okta")).toMatch(/domain is not set up/);
    expect(signInErrorSentence("OAuthCallbackError", "Okta")).toMatch(/^Okta did not sign you in/);
    expect(signInErrorSentence("<script>alert(1)</script>", "Okta")).toBe("Signing in with Okta did not work. Try again in a moment.");
    expect(signInErrorSentence(undefined, "Okta")).toBeUndefined();
  });

  it("seals a session's tokens so that they open only for that session and that secret", () => {
    const tokens = { accessToken: "at", refreshToken: "rt", expiresAt: 1 };
    const sealed = sealTokens("secret-one-0123456789", "session-1", tokens);
    expect(sealed).not.toContain("rt");
    expect(openTokens("secret-one-0123456789", "session-1", sealed)).toEqual(tokens);
    expect(openTokens("secret-one-0123456789", "session-2", sealed)).toBeUndefined();
    expect(openTokens("secret-two-0123456789", "session-1", sealed)).toBeUndefined();
  });
});

describe("the origin Auth.js's route sees", () => {
  it("is the one the browser used (Host, or a proxy's X-Forwarded-*), as in Auth.js's server actions", () => {
    const url = "http://127.0.0.1:3000/api/auth/callback/sso?code=c&state=s";
    // Next.js names 127.0.0.1 localhost in a NextRequest's URL; the provider was sent 127.0.0.1.
    const seen = new NextRequest(url, { headers: { host: "127.0.0.1:3000" } });
    expect(new URL(seen.url).hostname).toBe("localhost");
    expect(withBrowserOrigin(seen).url).toBe(url);
    const proxied = new NextRequest(url, {
      headers: { host: "10.0.0.5:3000", "x-forwarded-host": "harbor.example.com", "x-forwarded-proto": "https" },
    });
    expect(withBrowserOrigin(proxied).url).toBe("https://harbor.example.com/api/auth/callback/sso?code=c&state=s");
  });
});

describe("single sign-on's claims", () => {
  it("take an email and whether it was verified as a pair, from one source", () => {
    const idToken = { sub: "s", email: "a@acme.test", email_verified: true };
    // userinfo names another address without vouching for it: the ID token's flag does not carry over.
    expect(emailPair(idToken, { email: "b@acme.test" })).toEqual({ email: "b@acme.test", email_verified: undefined });
    expect(emailPair(idToken, { groups: ["x"] })).toEqual({ email: "a@acme.test", email_verified: true });
    expect(emailPair({ sub: "s" }, { email: "c@acme.test", email_verified: true })).toEqual({ email: "c@acme.test", email_verified: true });
  });
});
