import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };

const lastReply = (page: Page) => page.getByTestId("message-assistant").last().locator(".message-body").textContent();

describe("OAuth consent and remote agents in Chromium", () => {
  const browser = useBrowser();

  it("alice checks her calendar, connects through the provider's consent page, and sees today's events", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    await say(page, "check my calendar");
    const card = page.getByTestId("oauth-card");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
    expect(await card.textContent()).toContain("Connect your demo calendar account");
    await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(true);
    await expect.poll(() => page.getByTestId("thread-list").textContent(), PATIENCE).toContain("check my calendar");
    await screenshot(page, "chat-oauth-card");

    const opened = page.waitForEvent("popup");
    await card.getByRole("button", { name: "Connect" }).click();
    const provider = await opened;
    await provider.locator('input[name="email"]').fill("alice@acme.test");
    await provider.locator('input[name="password"]').fill("harbor");
    await screenshot(provider, "idp-login");
    await provider.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => provider.locator("body").textContent(), PATIENCE).toContain("Harbor wants to");
    await screenshot(provider, "idp-consent");
    const closed = provider.waitForEvent("close", PATIENCE);
    await provider.getByRole("button", { name: "Allow" }).click();
    // The callback page tells the chat and closes itself; the conversation goes on where it stopped.
    await closed;

    await expect.poll(() => lastReply(page), PATIENCE).toMatch(/^Today \(.+\) you have 3 events/);
    expect(await lastReply(page)).toContain("Lunch with Alice");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
    await expect.poll(() => page.getByTestId("thread-list").textContent(), PATIENCE).toContain("check my calendar");
    await screenshot(page, "chat-oauth-connected");

    // Connected: the next ask needs no consent.
    await say(page, "check my calendar");
    await expect.poll(() => page.getByTestId("message-assistant").count(), PATIENCE).toBe(2);
    expect(await page.getByTestId("oauth-card").count()).toBe(1);

    // She sees the connection and disconnects it, which revokes it at the provider.
    await page.getByRole("link", { name: "Connections" }).click();
    // Alice may hold other connections too (an API key from another journey): this one is the calendar's.
    const connection = page.locator('[data-testid="connection"][data-provider="calendar"]');
    await expect.poll(() => connection.filter({ hasText: "demo calendar" }).count(), PATIENCE).toBe(1);
    expect(await connection.textContent()).toContain("calendar.read");
    await screenshot(page, "connections");
    await connection.getByRole("button", { name: "Disconnect" }).click();
    await connection.getByRole("button", { name: "Yes, disconnect" }).click();
    await expect.poll(() => connection.count(), PATIENCE).toBe(0);
    await screenshot(page, "connections-disconnected");
    await context.close();
  });

  it("alice books a trip and answers the travel agent's question", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    await say(page, "ask the travel agent to book a trip");
    const card = page.getByTestId("remote-question");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
    expect(await card.textContent()).toContain("Which city?");
    expect(await card.textContent()).toContain("Travel agent asks");
    await screenshot(page, "chat-a2a-question");
    await card.getByLabel("Your answer").fill("Lisbon");
    await card.getByRole("button", { name: "Reply" }).click();
    await expect.poll(() => lastReply(page), PATIENCE).toMatch(/^Travel agent: Booked a trip to Lisbon/);
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("resolved");
    expect(await card.textContent()).toContain("You answered: “Lisbon”");
    await screenshot(page, "chat-a2a-answered");
    await context.close();
  });

  it("carol sees consent and remote-agent pauses with their reasons in the inbox and the console", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInAs(page, server.url, "carol@acme.test");
    await say(page, "ask the travel agent to show my bookings");
    const card = page.getByTestId("remote-question");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
    expect(await card.getByLabel("Credential").getAttribute("type")).toBe("password");
    await screenshot(page, "chat-a2a-credential");
    await page.goto(`${server.url}/chat`);
    await say(page, "check my calendar");
    await expect.poll(() => page.getByTestId("oauth-card").getAttribute("data-status"), PATIENCE).toBe("pending");

    await page.goto(`${server.url}/approvals`);
    const rows = page.getByTestId("inbox-row");
    await expect.poll(() => rows.filter({ hasText: "OAuth consent" }).count(), PATIENCE).toBeGreaterThan(0);
    await expect.poll(() => rows.filter({ hasText: "Remote agent" }).count(), PATIENCE).toBeGreaterThan(0);
    await rows.filter({ hasText: "Remote agent" }).first().click();
    await expect.poll(() => page.getByTestId("detail-reason").textContent(), PATIENCE).toBe("Remote agent · Travel agent");
    await screenshot(page, "inbox-reasons");

    await page.goto(`${server.url}/console`);
    const paused = page.getByTestId("run-row").filter({ has: page.locator('[data-reason="oauth"]') });
    await expect.poll(() => paused.count(), PATIENCE).toBeGreaterThan(0);
    await expect
      .poll(
        () =>
          page
            .getByTestId("run-row")
            .filter({ has: page.locator('[data-reason="a2a"]') })
            .count(),
        PATIENCE,
      )
      .toBeGreaterThan(0);
    await screenshot(page, "console-reasons");
    await context.close();
  });
});
