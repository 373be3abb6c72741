/**
 * Single sign-on in Chromium: with the demo's embedded identity provider (the shared server), and
 * with an OpenID Connect provider of the test's own configured by settings, password sign-in off —
 * where the provider's word on a role, an unverified email, an unknown domain and a revoked access
 * reaches Harbor.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startIdentityProvider, type RunningIdentityProvider } from "@/server/peers/identity-provider";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { launchBrowser, screenshot } from "../helpers/browser";
import { freePort, startServer, type RunningServer } from "../helpers/server";

const demo = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

interface Me {
  email: string;
  role: string;
  tenantSlug: string;
}

/** Who the browser is signed in as, by tRPC's `me.get`. */
async function me(page: Page, baseUrl: string): Promise<Me> {
  const answer = await page.request.get(`${baseUrl}/api/trpc/me.get`);
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { result: { data: Me } }).result.data;
}

/** The sign-in page at `size`: nothing sideways, nothing serious for axe, and a screenshot. */
async function checkSignInPage(page: Page, name: string): Promise<void> {
  const { scrollWidth, innerWidth } = await horizontalOverflow(page);
  expect(scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
  await expectAccessible(page, name);
  await screenshot(page, name);
}

/** Clicks "Sign in with <name>" and signs in at the provider's own page. */
async function signInAtProvider(page: Page, buttonName: string, email: string, shot?: string): Promise<void> {
  await page.getByRole("button", { name: buttonName }).click();
  // The provider's own sign-in page (Harbor's page has an email field too).
  await page.waitForURL(/\/interaction\//, PATIENCE);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill("harbor");
  if (shot) await screenshot(page, shot);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("signing in with the demo identity provider", () => {
  const DEMO_BUTTON = "Sign in with the demo identity provider";

  it.each([
    ["desktop", "carol@acme.test", { role: "admin", tenantSlug: "acme" }],
    ["phone", "dave@acme.test", { role: "member", tenantSlug: "acme" }],
  ] as const)("at %s size, %s lands in the chat as the provider's groups say", async (size: Size, email, expected) => {
    const context = await browser.newContext({ viewport: SIZES[size] });
    const page = await context.newPage();
    await page.goto(`${demo.url}/signin`);
    await expect.poll(() => page.getByRole("button", { name: DEMO_BUTTON }).isVisible(), PATIENCE).toBe(true);
    expect(await page.getByLabel("Password").count()).toBe(1);
    await checkSignInPage(page, `sso-signin-demo-${size}`);

    await signInAtProvider(page, DEMO_BUTTON, email, `sso-demo-idp-login-${size}`);
    await page.waitForURL(/\/chat/, PATIENCE);
    // Dave is new to Harbor: his first sign-in created him, in the tenant of his email's domain.
    expect(await me(page, demo.url)).toMatchObject({ email, ...expected });
    if (size === "desktop") {
      expect(await page.getByTestId("who").textContent()).toContain(`${email} · Acme`);
      expect(await page.getByTestId("role").textContent()).toBe(expected.role);
      expect(await page.getByRole("link", { name: "Console" }).count()).toBe(1);
    }
    await page.getByLabel("Message").waitFor(PATIENCE);
    await screenshot(page, `sso-demo-chat-${size}`);
    await context.close();
  });
});

describe("signing in with an OpenID Connect provider of the deployment's, passwords off", () => {
  const BUTTON = "Sign in with Acme Login";
  let idp: RunningIdentityProvider;
  let server: RunningServer;

  beforeAll(async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const client = { clientId: "harbor-e2e", clientSecret: "an-e2e-client-secret" };
    idp = await startIdentityProvider({
      client: { clientId: "calendar", clientSecret: "calendar-secret", redirectUris: ["http://127.0.0.1:9/callback"] },
      signInClient: { ...client, redirectUris: [`${url}/api/auth/callback/sso`] },
      accounts: [
        { id: "sub-erin", email: "erin@acme.test", name: "Erin", password: "harbor", groups: ["staff"] },
        { id: "sub-una", email: "una@acme.test", name: "Una", password: "harbor", emailVerified: false },
        { id: "sub-zoe", email: "zoe@initech.test", name: "Zoe", password: "harbor" },
      ],
    });
    server = await startServer(
      {
        PORT: String(port),
        HARBOR_SSO_ISSUER: idp.issuer,
        HARBOR_SSO_CLIENT_ID: client.clientId,
        HARBOR_SSO_CLIENT_SECRET: client.clientSecret,
        HARBOR_SSO_NAME: "Acme Login",
        HARBOR_SSO_DOMAINS: "acme.test=acme",
        HARBOR_SSO_ROLES: "harbor-admins=admin,harbor-approvers=approver",
        HARBOR_SSO_SCOPES: "openid email profile groups offline_access",
        HARBOR_SSO_RECHECK_S: "1",
        HARBOR_PASSWORD_SIGNIN: "0",
      },
      "e2e-sso",
    );
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.close();
  });

  it("shows only single sign-on, and refuses a password posted anyway", async () => {
    for (const size of ["desktop", "phone"] as const) {
      const context = await browser.newContext({ viewport: SIZES[size] });
      const page = await context.newPage();
      await page.goto(`${server.url}/signin`);
      await expect.poll(() => page.getByRole("button", { name: BUTTON }).isVisible(), PATIENCE).toBe(true);
      expect(await page.getByLabel("Password").count()).toBe(0);
      await checkSignInPage(page, `sso-signin-only-${size}`);
      await context.close();
    }
    const posted = await fetch(`${server.url}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=alice%40acme.test&password=harbor",
    });
    expect(posted.status).toBe(403);
  });

  it.each([
    ["una@acme.test", "has not verified your email address", "sso-refused-unverified"],
    ["zoe@initech.test", "domain is not set up for Harbor", "sso-refused-domain"],
  ])("refuses %s on the sign-in page, saying why", async (email, words, shot) => {
    const context = await browser.newContext({ viewport: SIZES.phone });
    const page = await context.newPage();
    await page.goto(`${server.url}/signin`);
    await signInAtProvider(page, BUTTON, email);
    await page.waitForURL(/\/signin\?error=/, PATIENCE);
    expect(await page.getByTestId("sign-in-error").textContent()).toContain(words);
    await checkSignInPage(page, shot);
    await context.close();
  });

  it("picks up a role the provider changes at the next request, and ends the session it revokes", async () => {
    const context = await browser.newContext({ viewport: SIZES.desktop });
    const page = await context.newPage();
    await page.goto(`${server.url}/chat`);
    await page.waitForURL(/\/signin/, PATIENCE);
    await signInAtProvider(page, BUTTON, "erin@acme.test");
    await page.waitForURL(/\/chat/, PATIENCE);
    expect(await me(page, server.url)).toMatchObject({ email: "erin@acme.test", role: "member", tenantSlug: "acme" });
    expect(await page.getByRole("link", { name: "Console" }).count()).toBe(0);

    idp.updateAccount("sub-erin", { groups: ["staff", "harbor-admins"] });
    // HARBOR_SSO_RECHECK_S=1: the first request a second later asks the provider again.
    await page.waitForTimeout(1_100);
    await page.reload();
    await expect.poll(() => page.getByTestId("role").textContent(), PATIENCE).toBe("admin");
    expect(await page.getByRole("link", { name: "Console" }).count()).toBe(1);
    await screenshot(page, "sso-role-changed-at-provider");

    await idp.revokeAccount("sub-erin");
    await page.waitForTimeout(1_100);
    await page.reload();
    await page.waitForURL(/\/signin/, PATIENCE);
    expect((await page.request.get(`${server.url}/api/trpc/me.get`)).status()).toBe(401);
    await context.close();
  });
});
