/**
 * A standing approval in Chromium: alice approves an email "for this conversation", her next email
 * to the same address goes out without a card, she revokes the approval in /connections, and the
 * next one asks again. Screenshots at 1280×800 (light) and 390×844 (dark); axe on each view.
 */
import { describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

describe("standing approvals in Chromium", () => {
  const browser = useBrowser();

  async function open(size: keyof typeof SIZES, colorScheme: "light" | "dark"): Promise<Page> {
    const page = await (await browser.newContext({ viewport: SIZES[size], colorScheme })).newPage();
    await signInAs(page, server.url, "alice@acme.test");
    return page;
  }
  const lastReply = (page: Page) => page.getByTestId("message-assistant").last().textContent();
  const noSideways = async (page: Page) => {
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  };

  for (const [size, scheme, to] of [
    ["desktop", "light", "bob@example.com"],
    ["phone", "dark", "dana@example.com"],
  ] as const) {
    it(`alice allows emails to one address for the conversation, then revokes it (${size}, ${scheme})`, async () => {
      const page = await open(size, scheme);
      await say(page, `send an email to ${to} saying hi`);
      const card = page.getByTestId("approval-card").last();
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");

      await card.getByRole("button", { name: "Allow from now on…" }).click();
      const popover = page.getByTestId("grant-popover");
      await popover.waitFor();
      expect(await popover.textContent()).toContain(`emails to ${to}`);
      expect(await popover.getByLabel("This conversation").isChecked()).toBe(true);
      await noSideways(page);
      await expectAccessible(page, `the grant popover (${size}, ${scheme})`);
      await screenshot(page, `grant-popover-${size}-${scheme}`);
      await popover.getByRole("button", { name: "Approve and allow" }).click();

      await expect.poll(() => lastReply(page), PATIENCE).toContain(`Email sent to ${to}.`);
      await expect.poll(() => card.textContent(), PATIENCE).toContain("Approved by you (and allowed from now on)");
      await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);

      // The same recipient again: no card to answer, and the reply says why.
      await say(page, `send an email to ${to} saying hi again`);
      await expect.poll(() => lastReply(page), PATIENCE).toContain(`Email sent to ${to} under your standing approval.`);
      expect(await page.locator('[data-testid="approval-card"][data-status="pending"]').count()).toBe(0);
      await expect.poll(() => page.getByTestId("approval-card").last().getAttribute("data-status"), PATIENCE).toBe("standing");
      expect(await page.getByTestId("approval-card").last().textContent()).toContain("Approved in advance by a standing approval");
      await screenshot(page, `grant-used-${size}-${scheme}`);

      // Revoked in /connections …
      const conversation = page.url();
      await page.goto(`${server.url}/connections`);
      const grant = page.getByTestId("grant").filter({ hasText: `emails to ${to}` });
      await expect.poll(() => grant.count(), PATIENCE).toBe(1);
      expect(await grant.textContent()).toContain("This conversation");
      await noSideways(page);
      await expectAccessible(page, `/connections with a standing approval (${size}, ${scheme})`);
      await screenshot(page, `grants-list-${size}-${scheme}`);
      await grant.getByRole("button", { name: /^Revoke/ }).click();
      await grant.getByRole("button", { name: "Yes, revoke" }).click();
      await expect.poll(() => grant.count(), PATIENCE).toBe(0);

      // … the next email asks again.
      await page.goto(conversation);
      await expect.poll(() => lastReply(page), PATIENCE).toContain(`Email sent to ${to} under your standing approval.`);
      await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
      await say(page, `send an email to ${to} saying one more`);
      await expect.poll(() => page.locator('[data-testid="approval-card"][data-status="pending"]').count(), PATIENCE).toBe(1);
      await page.getByTestId("approval-card").last().getByRole("button", { name: "Reject" }).click();
      await expect.poll(() => lastReply(page), PATIENCE).toContain("rejected");
      await page.context().close();
    });
  }

  it("bob allows alice's transfers to one account up to a raised cap for some hours from the inbox; carol (admin) sees it", async () => {
    const account = `DE-GRANT-${Date.now().toString(36).toUpperCase()}`;
    const alice = await open("desktop", "light");
    await say(alice, `transfer 500 EUR to ${account}`);
    await expect.poll(() => alice.getByTestId("approval-card").last().getAttribute("data-status"), PATIENCE).toBe("pending");

    const bob = await (await browser.newContext({ viewport: SIZES.phone, colorScheme: "light" })).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    const row = bob.getByTestId("inbox-row").filter({ hasText: `Transfer 500 EUR to ${account}` });
    await expect.poll(() => row.count(), PATIENCE).toBe(1);
    await row.click();
    const detail = bob.getByTestId("inbox-detail");
    await detail.getByRole("button", { name: "Allow from now on…" }).click();
    const popover = bob.getByTestId("grant-popover");
    await popover.waitFor();
    expect(await popover.textContent()).toContain(`transfers to ${account} up to 500 EUR`);
    await popover.getByLabel("Hours").fill("2");
    expect(await popover.getByLabel("The next").isChecked()).toBe(true);
    await popover.getByLabel("Allow amount up to").fill("9000");
    expect(await popover.getByRole("button", { name: "Approve and allow" }).isDisabled()).toBe(true);
    await popover.getByLabel("Allow amount up to").fill("800");
    await noSideways(bob);
    await expectAccessible(bob, "the inbox's grant popover (phone)");
    await screenshot(bob, "grant-popover-inbox-phone-light");
    await popover.getByRole("button", { name: "Approve and allow" }).click();
    await expect.poll(() => lastReply(alice), PATIENCE).toContain(`Transferred 500 EUR to ${account}.`);

    // Another conversation of alice's, within the cap: no approver needed.
    await alice.goto(`${server.url}/chat`);
    await say(alice, `transfer 700 EUR to ${account}`);
    await expect.poll(() => lastReply(alice), PATIENCE).toContain(`Transferred 700 EUR to ${account} under a standing approval.`);

    const carol = await (await browser.newContext({ viewport: SIZES.desktop, colorScheme: "dark" })).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    await carol.goto(`${server.url}/connections`);
    const grant = carol.getByTestId("grant").filter({ hasText: `transfers to ${account} up to 800 EUR` });
    await expect.poll(() => grant.count(), PATIENCE).toBe(1);
    expect(await grant.textContent()).toMatch(/For Alice · given by Bob .* used 1 time/);
    await expectAccessible(carol, "/connections as an admin (dark)");
    await screenshot(carol, "grants-list-admin-desktop-dark");
    await grant.getByRole("button", { name: /^Revoke/ }).click();
    await grant.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => grant.count(), PATIENCE).toBe(0);
    for (const p of [alice, bob, carol]) await p.context().close();
  });

  it("shows an empty list of standing approvals to someone with none", async () => {
    const page = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await signInAs(page, server.url, "mallory@globex.test");
    await page.goto(`${server.url}/connections`);
    await page.getByTestId("grants-empty").waitFor(PATIENCE);
    await expectAccessible(page, "/connections without standing approvals");
    await page.context().close();
  });
});
