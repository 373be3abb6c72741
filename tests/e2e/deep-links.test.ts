import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };

/** Fills the sign-in form the page was sent to. */
async function signInHere(page: Page, email: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("harbor");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

describe("deep links survive signing in", () => {
  const browser = useBrowser();

  it("bob opens /approvals signed out, signs in, and is back in the inbox", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/approvals`);
    await page.waitForURL(/\/signin\?/);
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/approvals");
    await screenshot(page, "signin-deep-link");
    await signInHere(page, "bob@acme.test");
    await page.waitForURL(/\/approvals$/, PATIENCE);
    await expect.poll(() => page.getByRole("tab", { name: /Pending/ }).count(), PATIENCE).toBe(1);
    await page.context().close();
  });

  it("alice opens one of her conversations signed out, signs in, and is back in it", async () => {
    const first = await (await browser.newContext()).newPage();
    await signInAs(first, server.url, "alice@acme.test");
    await say(first, "hello there");
    await first.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
    await expect.poll(() => first.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThan(0);
    const threadPath = new URL(first.url()).pathname;
    await first.context().close();

    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}${threadPath}`);
    await page.waitForURL(/\/signin\?/);
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe(threadPath);
    await signInHere(page, "alice@acme.test");
    await page.waitForURL((url) => url.pathname === threadPath, PATIENCE);
    await expect.poll(() => page.getByTestId("message-user").first().textContent(), PATIENCE).toContain("hello there");
    await page.context().close();
  });

  it("a return address on another site is ignored: sign-in goes to the chat", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/signin?callbackUrl=${encodeURIComponent("https://evil.example/approvals")}`);
    await signInHere(page, "bob@acme.test");
    await page.waitForURL(/\/chat$/, PATIENCE);
    expect(new URL(page.url()).origin).toBe(new URL(server.url).origin);
    await page.context().close();
  });
});
