/**
 * The embedded identity provider and Harbor's OAuth client, end to end over real HTTP: a
 * cookie-keeping "browser" signs in and consents, the client exchanges the code, the calendar
 * accepts the token until it expires, refresh brings access back, and revocation ends it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  OAuthCallbackError,
  OAuthGrantError,
  OAuthProviderError,
  oauthClient,
  pkceVerifierFor,
  type OAuthClient,
} from "@/server/oauth/client";
import { startIdentityProvider, type IdpAccount, type RunningIdentityProvider } from "@/server/peers/identity-provider";
import { ConsentBrowser, formAction } from "../../helpers/consent";

const REDIRECT_URI = "http://127.0.0.1:9/api/oauth/callback"; // never followed
const CLIENT = { clientId: "harbor", clientSecret: "harbor-client-secret-0123456789", redirectUris: [REDIRECT_URI] };
const PKCE_SECRET = "pkce-test-secret";
const ACCOUNTS: IdpAccount[] = [
  { id: "acct-dana", email: "dana@example.test", name: "Dana Reyes", password: "dana-pass" },
  { id: "acct-omar", email: "omar@example.test", name: "Omar Haddad", password: "omar-pass" },
];
const TTL_SECONDS = 2;

describe("embedded identity provider with Harbor's OAuth client", () => {
  let idp: RunningIdentityProvider;
  let client: OAuthClient;
  const seenByCalendar: string[] = [];
  const startUpWarnings: string[] = [];

  beforeAll(async () => {
    const warn = vi
      .spyOn(console, "warn")
      .mockImplementation((...args: unknown[]) => void startUpWarnings.push(args.map(String).join(" ")));
    idp = await startIdentityProvider({
      client: CLIENT,
      accounts: ACCOUNTS,
      accessTokenTtlSeconds: TTL_SECONDS,
      onCalendarRequest: (token) => seenByCalendar.push(token),
    });
    warn.mockRestore();
    client = oauthClient({
      issuer: idp.issuer,
      clientId: CLIENT.clientId,
      clientSecret: CLIENT.clientSecret,
      redirectUri: REDIRECT_URI,
      scopes: ["openid", "offline_access", "calendar.read"],
    });
  });
  afterAll(async () => {
    await idp?.close();
  });

  it("starts without warnings a demo user cannot act on (runtime, in-memory store)", () => {
    expect(startUpWarnings).toEqual([]);
  });

  /** Starts an authorization and signs in; returns the consent page and what the callback needs. */
  async function signIn(account: IdpAccount, browser = new ConsentBrowser(REDIRECT_URI)) {
    const state = randomBytes(16).toString("base64url");
    const codeVerifier = pkceVerifierFor(PKCE_SECRET, state);
    const login = await browser.go(await client.authorizationUrl({ state, codeVerifier }));
    expect(login.res.status).toBe(200);
    expect(login.html).toContain('name="email"');
    expect(login.html).toContain('name="password"');
    const consent = await browser.go(new URL(formAction(login.html, "Sign in"), login.url).href, {
      method: "POST",
      form: { email: account.email, password: account.password },
    });
    return { browser, consent, state, codeVerifier };
  }

  /** Signs in and answers the consent page; returns the unfollowed redirect to Harbor's callback. */
  async function authorize(account: IdpAccount, decision: "Allow" | "Deny" = "Allow") {
    const { browser, consent, state, codeVerifier } = await signIn(account);
    expect(consent.res.status).toBe(200);
    expect(consent.html).toContain("Harbor wants to:");
    expect(consent.html).toContain("read your calendar (calendar.read)");
    const answer = await browser.go(new URL(formAction(consent.html, decision), consent.url).href, { method: "POST" });
    expect(answer.url.href.startsWith(REDIRECT_URI)).toBe(true);
    return { callbackUrl: answer.url, state, codeVerifier };
  }

  async function calendar(accessToken: string) {
    const res = await fetch(idp.calendarUrl, { headers: { authorization: `Bearer ${accessToken}` } });
    return { res, body: (await res.json()) as Record<string, unknown> };
  }

  it("connects, reads the calendar, refreshes past expiry and loses access on revocation", async () => {
    const dana = ACCOUNTS[0]!;
    const { callbackUrl, state, codeVerifier } = await authorize(dana);
    const tokens = await client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier });
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.scope?.split(" ")).toContain("calendar.read");
    expect(tokens.expiresAt).toBeGreaterThan(Date.now());
    expect(tokens.expiresAt).toBeLessThanOrEqual(Date.now() + TTL_SECONDS * 1000);

    const first = await calendar(tokens.accessToken);
    expect(first.res.status).toBe(200);
    expect(first.body).toMatchObject({ account: { email: dana.email, name: dana.name } });
    expect(first.body.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const events = first.body.events as { start: string; end: string; title: string }[];
    expect(events).toHaveLength(3);
    expect(events.some((e) => e.title.includes("Dana"))).toBe(true);
    expect(seenByCalendar).toContain(tokens.accessToken);

    await new Promise((resolve) => setTimeout(resolve, (TTL_SECONDS + 1.2) * 1000));
    const expired = await calendar(tokens.accessToken);
    expect(expired.res.status).toBe(401);
    expect(expired.res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(expired.body.message).toEqual(expect.any(String));

    const refreshed = await client.refresh(tokens.refreshToken!);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect((await calendar(refreshed.accessToken)).res.status).toBe(200);

    await idp.revokeAccount(dana.id);
    expect((await calendar(refreshed.accessToken)).res.status).toBe(401);
    await expect(client.refresh(refreshed.refreshToken ?? tokens.refreshToken!)).rejects.toBeInstanceOf(OAuthGrantError);
  });

  it("shows whose calendar it is, and revoking one account leaves the other connected", async () => {
    const [dana, omar] = [ACCOUNTS[0]!, ACCOUNTS[1]!];
    const forOmar = await authorize(omar);
    const omarTokens = await client.exchangeCode({ ...forOmar, expectedState: forOmar.state });
    const forDana = await authorize(dana);
    const danaTokens = await client.exchangeCode({ ...forDana, expectedState: forDana.state });

    const seen = await calendar(omarTokens.accessToken);
    expect(seen.body).toMatchObject({ account: { email: omar.email } });
    expect((seen.body.events as { title: string }[]).some((e) => e.title.includes("Omar"))).toBe(true);

    await idp.revokeAccount(dana.id);
    await expect(client.refresh(danaTokens.refreshToken!)).rejects.toBeInstanceOf(OAuthGrantError);
    expect((await client.refresh(omarTokens.refreshToken!)).accessToken).toEqual(expect.any(String));
  });

  it("revokes a refresh token at the provider's revocation endpoint", async () => {
    const { callbackUrl, state, codeVerifier } = await authorize(ACCOUNTS[1]!);
    const tokens = await client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier });
    await client.revoke(tokens.refreshToken!);
    await expect(client.refresh(tokens.refreshToken!)).rejects.toBeInstanceOf(OAuthGrantError);
    // Revoking a token the provider no longer knows is not an error (RFC 7009).
    await expect(client.revoke(tokens.refreshToken!)).resolves.toBeUndefined();

    // oidc-provider revokes every token of the grant when any one of them is revoked, so even
    // revoking only the access token ends the refresh token too.
    const again = await authorize(ACCOUNTS[1]!);
    const second = await client.exchangeCode({ ...again, expectedState: again.state });
    await client.revoke(second.accessToken);
    expect((await calendar(second.accessToken)).res.status).toBe(401);
    await expect(client.refresh(second.refreshToken!)).rejects.toBeInstanceOf(OAuthGrantError);
  });

  it("shows the login page again with an error for a wrong password", async () => {
    const browser = new ConsentBrowser(REDIRECT_URI);
    const state = randomBytes(16).toString("base64url");
    const login = await browser.go(await client.authorizationUrl({ state, codeVerifier: pkceVerifierFor(PKCE_SECRET, state) }));
    const retry = await browser.go(new URL(formAction(login.html, "Sign in"), login.url).href, {
      method: "POST",
      form: { email: "dana@example.test", password: "not-it" },
    });
    expect(retry.res.status).toBe(401);
    expect(retry.html).toContain("That email and password do not match an account.");
    expect(retry.html).toContain('value="dana@example.test"');
    expect(retry.html).toContain("Sign in");
    expect(retry.html).not.toContain("Harbor wants to:");

    // The same interaction still accepts the right password.
    const consent = await browser.go(new URL(formAction(retry.html, "Sign in"), retry.url).href, {
      method: "POST",
      form: { email: "dana@example.test", password: "dana-pass" },
    });
    expect(consent.html).toContain("Harbor wants to:");
  });

  it("escapes what it echoes", async () => {
    const browser = new ConsentBrowser(REDIRECT_URI);
    const state = "s";
    const login = await browser.go(await client.authorizationUrl({ state, codeVerifier: pkceVerifierFor(PKCE_SECRET, state) }));
    const retry = await browser.go(new URL(formAction(login.html, "Sign in"), login.url).href, {
      method: "POST",
      form: { email: '"><script>alert(1)</script>', password: "x" },
    });
    expect(retry.html).not.toContain("<script>");
    expect(retry.html).toContain("&#34;&#62;&#60;script&#62;");
  });

  it("turns Deny into an access_denied OAuthProviderError", async () => {
    const { callbackUrl, state, codeVerifier } = await authorize(ACCOUNTS[0]!, "Deny");
    expect(callbackUrl.searchParams.get("error")).toBe("access_denied");
    const failure = await client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OAuthProviderError);
    expect((failure as OAuthProviderError).error).toBe("access_denied");
  });

  it("refuses a callback whose state differs, before using its code", async () => {
    const { callbackUrl, state, codeVerifier } = await authorize(ACCOUNTS[0]!);
    await expect(client.exchangeCode({ callbackUrl, expectedState: `${state}-other`, codeVerifier })).rejects.toBeInstanceOf(
      OAuthCallbackError,
    );
    // The code was not spent by the refused attempt.
    const tokens = await client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier });
    expect(tokens.accessToken).toEqual(expect.any(String));
  });

  it("refuses a code used twice, and a code with the wrong verifier", async () => {
    const { callbackUrl, state, codeVerifier } = await authorize(ACCOUNTS[1]!);
    await client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier });
    await expect(client.exchangeCode({ callbackUrl, expectedState: state, codeVerifier })).rejects.toBeInstanceOf(OAuthGrantError);

    const other = await authorize(ACCOUNTS[1]!);
    const wrongVerifier = pkceVerifierFor(PKCE_SECRET, "another attempt");
    await expect(
      client.exchangeCode({ callbackUrl: other.callbackUrl, expectedState: other.state, codeVerifier: wrongVerifier }),
    ).rejects.toBeInstanceOf(OAuthGrantError);
  });

  it("rejects calendar requests without a usable token", async () => {
    const none = await fetch(idp.calendarUrl);
    expect(none.status).toBe(401);
    const unknown = await calendar("not-a-real-token");
    expect(unknown.res.status).toBe(401);
    expect(unknown.res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("derives PKCE verifiers deterministically", () => {
    const verifier = pkceVerifierFor("secret", "binding-1");
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkceVerifierFor("secret", "binding-1")).toBe(verifier);
    expect(pkceVerifierFor("secret", "binding-2")).not.toBe(verifier);
    expect(pkceVerifierFor("other", "binding-1")).not.toBe(verifier);
  });
});
