import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, SCREENSHOT_DIR, signInAs, useBrowser } from "../helpers/browser";
import { closedPortUrl } from "../helpers/server";
import { eventually, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
/** Each journey signs in, waits for deliveries and runs axe several times: more than the default minute on a busy machine. */
const SLOW = 120_000;
const SHOTS = path.join(SCREENSHOT_DIR, "webhooks");
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const ACCOUNT = "DE02120300000000202051-HOOKS";

/** The webhooks page in Chromium: carol adds one pointing at a real receiver, alice's transfer is delivered to it, carol deletes it. */
describe("the webhooks page in Chromium", () => {
  const browser = useBrowser();
  let receiver: WebhookReceiver;
  let carol: Page;
  let webhookId = "";
  const findings: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    receiver = await startWebhookReceiver();
    const context = await browser.newContext({ viewport: SIZES.desktop });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    carol = await context.newPage();
    await signInAs(carol, server.url, "carol@acme.test");
  });
  afterAll(async () => {
    await carol?.context().close();
    await receiver?.close();
    if (findings.length > 0) console.info(`axe, milder findings:\n${[...new Set(findings)].join("\n")}`);
  });

  /** Nothing scrolls sideways, axe finds nothing serious, and a screenshot is saved. */
  async function check(page: Page, name: string): Promise<void> {
    await page.evaluate(() => document.fonts.ready);
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
    for (const v of await expectAccessible(page, name)) findings.push(`[${v.impact}] ${v.id} on ${name}: ${v.help}`);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  }

  it(
    "carol opens Webhooks from the console and adds one; its secret shows once, with a copy button",
    async () => {
      await carol.getByRole("link", { name: "Console" }).click();
      await carol.waitForURL(/\/console$/);
      await carol.getByRole("link", { name: "Webhooks" }).click();
      await carol.waitForURL(/\/console\/webhooks$/);
      await carol.getByRole("heading", { name: "Webhooks", level: 1 }).first().waitFor();
      await expect.poll(() => carol.getByTestId("webhooks-empty").count(), PATIENCE).toBe(1);
      await check(carol, "empty-desktop-light");

      await carol.getByRole("button", { name: "New webhook" }).click();
      const form = carol.getByTestId("webhook-form");
      // The server refuses what is not https (naming the field): said under the URL.
      await form.getByLabel("Endpoint URL").fill("http://hooks.example.com/harbor");
      await form.getByRole("button", { name: "Create webhook" }).click();
      await expect.poll(() => form.textContent(), PATIENCE).toContain("The URL must use https.");
      expect(await form.getByLabel("Endpoint URL").getAttribute("aria-invalid")).toBe("true");
      await check(carol, "form-error-desktop-light");

      await form.getByLabel("Endpoint URL").fill(receiver.url);
      await form.getByRole("checkbox", { name: /pause\.expired/ }).uncheck();
      await form.getByRole("button", { name: "Create webhook" }).click();
      const shown = carol.getByTestId("webhook-secret");
      await shown.waitFor(PATIENCE);
      expect(await shown.textContent()).toContain("You will not see it again");
      const secret = await shown.getByLabel("Signing secret").inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      receiver.secret = secret;
      await shown.getByRole("button", { name: "Copy secret" }).click();
      await shown.getByRole("button", { name: "Secret copied" }).waitFor();
      expect(await carol.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      const row = carol.getByTestId("webhook-row");
      await expect.poll(() => row.count(), PATIENCE).toBe(1);
      webhookId = (await row.getAttribute("data-webhook-id"))!;
      expect(await row.textContent()).toContain(receiver.url);
      expect(await row.textContent()).toContain("Added by Carol");
      expect(await carol.getByTestId("webhook-detail").textContent()).toContain("pause.requested");
      expect(await carol.getByTestId("webhook-detail").textContent()).not.toContain("pause.expired");
      await expect.poll(() => carol.getByTestId("deliveries-empty").count(), PATIENCE).toBe(1);
      await check(carol, "secret-desktop-light");

      // Once dismissed (or after a reload), the secret is nowhere on the page.
      await shown.getByRole("button", { name: "I have stored it" }).click();
      expect(await carol.content()).not.toContain(secret.slice("whsec_".length));
      await carol.reload();
      await row.waitFor(PATIENCE);
      expect(await carol.content()).not.toContain(secret.slice("whsec_".length));
    },
    SLOW,
  );

  it(
    "alice asks the concierge for a transfer: the pause.requested is delivered, signed, and carol sees it delivered",
    async () => {
      // The receiver fails the first attempt: the log shows the retry. A second webhook points where nothing listens.
      receiver.failNext(1);
      const created = await carol.request.post(`${server.url}/api/trpc/webhooks.create`, {
        data: { url: `${await closedPortUrl()}/nobody-home`, events: ["pause.requested"] },
      });
      expect(created.status()).toBe(200);
      const deadId = ((await created.json()) as { result: { data: { id: string } } }).result.data.id;
      // Newest first: the page opens on it after a reload; carol picks hers.
      await carol.reload();
      await carol.locator(`[data-testid="webhook-row"][data-webhook-id="${webhookId}"]`).click();
      await expect.poll(() => carol.getByTestId("webhook-detail").getAttribute("data-webhook-id"), PATIENCE).toBe(webhookId);
      const alice = await (await browser.newContext()).newPage();
      await signInAs(alice, server.url, "alice@acme.test");
      await say(alice, `transfer 75 EUR to ${ACCOUNT}`);
      await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
      await alice.context().close();

      const delivery = carol.locator('[data-testid="delivery"][data-event="pause.requested"]');
      await expect.poll(() => delivery.count(), PATIENCE).toBe(1);
      await expect.poll(() => delivery.getAttribute("data-status"), PATIENCE).toBe("delivered");
      const [sent] = await eventually(
        () => receiver.received.filter((r) => r.payload.type === "pause.requested").length >= 2 && receiver.received,
      );
      expect(sent!.verified).toBe(true);
      expect(sent!.payload.data).toMatchObject({ kind: "approval", toolName: "transfer_funds", status: "pending" });
      expect(sent!.body).not.toContain(ACCOUNT);
      expect(await delivery.getByTestId("delivery-subject").textContent()).toBe("· transfer_funds");
      await expect.poll(() => delivery.getByTestId("delivery-answer").textContent(), PATIENCE).toBe("HTTP 204");

      await delivery.getByRole("button", { name: "Show all 2 attempts" }).click();
      const attempts = delivery.getByTestId("delivery-attempts");
      expect(await attempts.locator("li").allTextContents()).toEqual([
        expect.stringMatching(/^Attempt 1HTTP 500/),
        expect.stringMatching(/^Attempt 2HTTP 204/),
      ]);
      await check(carol, "delivered-desktop-light");

      // The webhook nobody answers: its message waits for a retry, with the reason.
      const deadRow = carol.locator(`[data-testid="webhook-row"][data-webhook-id="${deadId}"]`);
      await deadRow.click();
      const waiting = carol.locator('[data-testid="delivery"][data-event="pause.requested"]');
      await expect.poll(() => waiting.getByTestId("delivery-answer").textContent(), PATIENCE).toMatch(/ECONNREFUSED/);
      expect(await waiting.getAttribute("data-status")).toBe("pending");
      expect(await waiting.textContent()).toMatch(/Next attempt(in \d+s|now)/);
      await check(carol, "retrying-desktop-light");
      await carol.locator(`[data-testid="webhook-row"][data-webhook-id="${webhookId}"]`).click();
      await expect.poll(() => carol.getByTestId("webhook-detail").getAttribute("data-webhook-id"), PATIENCE).toBe(webhookId);

      // Bob rejects the transfer (leaving the inbox as it was): that is a pause.resolved.
      const bob = await (await browser.newContext()).newPage();
      await signInAs(bob, server.url, "bob@acme.test");
      const listed = await bob.request.get(`${server.url}/api/trpc/interactions.list?input=${encodeURIComponent('{"status":"pending"}')}`);
      const pending = ((await listed.json()) as { result: { data: { interactionId: string; message: string | null }[] } }).result.data;
      for (const i of pending.filter((p) => p.message?.includes(ACCOUNT)))
        await bob.request.post(`${server.url}/api/trpc/interactions.reject`, { data: { interactionId: i.interactionId } });
      await bob.context().close();
      const resolved = carol.locator('[data-testid="delivery"][data-event="pause.resolved"]');
      await expect.poll(() => resolved.getAttribute("data-status"), PATIENCE).toBe("delivered");
      expect(await resolved.getByTestId("delivery-subject").textContent()).toBe("· transfer_funds · rejected");
    },
    SLOW,
  );

  for (const scheme of ["light", "dark"] as const) {
    for (const size of ["desktop", "phone"] as const) {
      it(
        `shows the list and the delivery log (${size}, ${scheme})`,
        async () => {
          const context = await browser.newContext({ viewport: SIZES[size], colorScheme: scheme, reducedMotion: "reduce" });
          const page = await context.newPage();
          await signInAs(page, server.url, "carol@acme.test");
          // The console links to it, at every size.
          await page.goto(`${server.url}/console`);
          await expect.poll(() => page.getByTestId("scheduler").textContent(), PATIENCE).toMatch(/running/);
          await page.screenshot({ path: path.join(SHOTS, `console-${size}-${scheme}.png`) });
          await page.getByRole("link", { name: "Webhooks" }).click();
          await page.waitForURL(/\/console\/webhooks$/);
          const row = page.locator(`[data-testid="webhook-row"][data-webhook-id="${webhookId}"]`);
          await row.waitFor(PATIENCE);
          const deliveries = page.getByTestId("delivery");
          if (size === "phone") {
            // The list alone; a webhook opens its log, Back returns.
            expect(await page.getByTestId("webhook-detail").isVisible()).toBe(false);
            await check(page, `list-${size}-${scheme}`);
          }
          await row.click();
          await expect.poll(() => page.getByTestId("webhook-detail").getAttribute("data-webhook-id"), PATIENCE).toBe(webhookId);
          await expect.poll(() => deliveries.count(), PATIENCE).toBe(2);
          await page
            .locator('[data-testid="delivery"][data-event="pause.requested"]')
            .getByRole("button", { name: /attempts/ })
            .click();
          await check(page, `detail-${size}-${scheme}`);
          if (size === "phone") {
            await page.getByRole("button", { name: "Back to webhooks" }).click();
            await row.waitFor();
            expect(await page.getByTestId("webhook-detail").isVisible()).toBe(false);
            await page.getByRole("button", { name: "New webhook" }).click();
            await page.getByTestId("webhook-form").waitFor();
            await check(page, `form-${size}-${scheme}`);
            // The secret on a phone: shown, then the webhook is removed again.
            await page.getByLabel("Endpoint URL").fill(`${receiver.url}/phone`);
            await page.getByRole("button", { name: "Create webhook" }).click();
            await page.getByTestId("webhook-secret").waitFor(PATIENCE);
            await check(page, `secret-${size}-${scheme}`);
            const extra = page.locator('[data-testid="webhook-row"]', { hasText: `${receiver.url}/phone` });
            await extra.waitFor(PATIENCE);
            const removed = await page.request.post(`${server.url}/api/trpc/webhooks.delete`, {
              data: { webhookId: await extra.getAttribute("data-webhook-id") },
            });
            expect(removed.status()).toBe(200);
          }
          await context.close();
        },
        SLOW,
      );
    }
  }

  it(
    "carol deletes the webhook after confirming; nothing is sent to it afterwards",
    async () => {
      await carol.reload();
      await carol.locator(`[data-testid="webhook-row"][data-webhook-id="${webhookId}"]`).click();
      const detail = carol.getByTestId("webhook-detail");
      await expect.poll(() => detail.getAttribute("data-webhook-id"), PATIENCE).toBe(webhookId);
      await detail.getByRole("button", { name: "Delete webhook" }).click();
      await detail.getByRole("group", { name: "Confirm deletion" }).waitFor();
      await check(carol, "delete-confirm-desktop-light");
      // Keeping it changes nothing.
      await detail.getByRole("button", { name: "Keep it" }).click();
      expect(await carol.getByTestId("webhook-row").count()).toBe(2);
      await detail.getByRole("button", { name: "Delete webhook" }).click();
      await detail.getByRole("button", { name: "Yes, delete" }).click();
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Webhook deleted");
      // Then the one nobody answers.
      await expect.poll(() => carol.getByTestId("webhook-row").count(), PATIENCE).toBe(1);
      await detail.getByRole("button", { name: "Delete webhook" }).click();
      await detail.getByRole("button", { name: "Yes, delete" }).click();
      await expect.poll(() => carol.getByTestId("webhooks-empty").count(), PATIENCE).toBe(1);
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Webhook deleted");
      const listed = await carol.request.get(`${server.url}/api/trpc/webhooks.list`);
      expect(((await listed.json()) as { result: { data: unknown[] } }).result.data).toEqual([]);

      // A new pause is not sent to the deleted webhook.
      const before = receiver.received.length;
      const alice = await (await browser.newContext()).newPage();
      await signInAs(alice, server.url, "alice@acme.test");
      await say(alice, "send an email to hooks@example.com saying bye");
      const card = alice.getByTestId("approval-card");
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
      await card.getByRole("button", { name: "Reject" }).click();
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("rejected");
      await alice.context().close();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received.length).toBe(before);
    },
    SLOW,
  );

  it("keeps members and approvers out of /console/webhooks", async () => {
    for (const email of ["alice@acme.test", "bob@acme.test"]) {
      const page = await (await browser.newContext()).newPage();
      await signInAs(page, server.url, email);
      await page.goto(`${server.url}/console/webhooks`);
      await expect.poll(() => page.getByTestId("console-forbidden").textContent(), PATIENCE).toContain("Admins only");
      expect(await page.getByTestId("webhooks").count()).toBe(0);
      await page.context().close();
    }
  });
});
