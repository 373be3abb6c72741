import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { controlLook, expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, SCREENSHOT_DIR, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };
const SHOTS = process.env.UI_SHOTS_DIR ?? path.join(SCREENSHOT_DIR, "layout");

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;
type Scheme = "light" | "dark";

/** Realistic content that tends to break layouts: a long IBAN with a long reference, a long unbroken word. */
const IBAN = "DE89370400440532013000-INVOICE-2026-0000012345678901234567890";
const LONG_WORD = "https://example.test/".concat("a-really-long-path-segment-without-spaces-".repeat(6));
const LONG_MESSAGE = `Hello concierge! ${"Here is a long message that goes on for a while to see how a paragraph wraps. ".repeat(6)}${LONG_WORD}`;

/** Every page the journeys visit, at both sizes and in both colour schemes: nothing scrolls sideways, axe finds nothing serious. */
describe("every page at desktop and phone size, light and dark", () => {
  const browser = useBrowser();
  let threadPath: string;
  const findings: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, LONG_MESSAGE);
    // (expect.poll belongs to tests: here the locators wait.)
    await alice.getByTestId("message-assistant").waitFor(PATIENCE);
    // The new conversation gets its address, then the composer opens again.
    await alice.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
    await alice.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
    await alice.waitForTimeout(300);
    await say(alice, `transfer 480 EUR to ${IBAN}`);
    await alice
      .locator('[data-testid="approval-card"][data-status="pending"]')
      .waitFor(PATIENCE)
      .catch(async (error: unknown) => {
        await alice.screenshot({ path: path.join(SHOTS, "setup-failed.png") });
        throw error;
      });
    threadPath = new URL(alice.url()).pathname;
    await alice.context().close();
  });

  afterAll(async () => {
    // Leave the tenant's inbox as it was: the transfer is rejected on purpose.
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    const listed = await bob.request.get(`${server.url}/api/trpc/interactions.list?input=${encodeURIComponent('{"status":"pending"}')}`);
    const pending = ((await listed.json()) as { result: { data: { interactionId: string; message: string | null }[] } }).result.data;
    for (const i of pending.filter((p) => p.message?.includes(IBAN)))
      await bob.request.post(`${server.url}/api/trpc/interactions.reject`, { data: { interactionId: i.interactionId } });
    await bob.context().close();
    if (findings.length > 0) console.info(`axe, milder findings:\n${[...new Set(findings)].join("\n")}`);
  });

  /** Checks the page as it is now, and saves a screenshot of it. */
  async function check(page: Page, name: string, size: Size, scheme: Scheme): Promise<void> {
    const label = `${name} (${size}, ${scheme})`;
    await page.evaluate(() => document.fonts.ready);
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    console.info(`scroll width ${label}: ${scrollWidth} of ${innerWidth}`);
    expect(scrollWidth, `${label} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
    for (const v of await expectAccessible(page, label)) findings.push(`[${v.impact}] ${v.id} on ${name}: ${v.help}`);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${size}-${scheme}.png`) });
    expect(cspViolations, "the CSP refused something").toEqual([]);
  }

  /** A context at this size and scheme whose pages report any Content-Security-Policy refusal (a style or script the CSP blocked). */
  async function contextFor(b: Pick<Browser, "newContext">, size: Size, scheme: Scheme): Promise<BrowserContext> {
    const context = await b.newContext({ viewport: SIZES[size], colorScheme: scheme, reducedMotion: "reduce" });
    context.on("page", (page) =>
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
      }),
    );
    return context;
  }

  for (const scheme of ["light", "dark"] as const) {
    for (const size of ["desktop", "phone"] as const) {
      it(`sign-in, chat, connections (${size}, ${scheme})`, async () => {
        const page = await (await contextFor(browser, size, scheme)).newPage();
        await page.goto(`${server.url}/signin`);
        await page.getByLabel("Email").waitFor();
        await check(page, "signin", size, scheme);
        // An unknown address, signed out: the brand's header, a main landmark, and a way to sign in.
        await page.goto(`${server.url}/no/such/page`);
        await page.getByRole("heading", { name: "Not found" }).waitFor(PATIENCE);
        expect(await page.getByRole("banner").count()).toBe(1);
        expect(await page.getByRole("main").getByRole("heading", { name: "Not found" }).count()).toBe(1);
        expect(await page.getByRole("main").getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/signin");
        await check(page, "not-found-signed-out", size, scheme);

        await signInAs(page, server.url, "alice@acme.test");
        await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the concierge help?");
        await check(page, "chat-empty", size, scheme);

        await page.goto(`${server.url}${threadPath}`);
        await expect.poll(() => page.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
        await check(page, "chat-thread", size, scheme);

        if (size === "phone") {
          await page.getByRole("button", { name: "Conversations" }).click();
          const drawer = page.getByRole("dialog", { name: "Conversations" });
          await expect.poll(() => drawer.getByTestId("thread-list").textContent(), PATIENCE).toContain("Hello concierge");
          await check(page, "chat-drawer", size, scheme);
          await page.keyboard.press("Escape");
          await expect.poll(() => drawer.count(), PATIENCE).toBe(0);

          await page.getByRole("button", { name: "Open menu" }).click();
          const menu = page.getByRole("dialog", { name: "Menu" });
          await menu.getByRole("button", { name: "Sign out" }).waitFor();
          await check(page, "menu", size, scheme);
          await menu.getByRole("link", { name: "Connections" }).click();
        } else {
          await page.getByRole("link", { name: "Connections" }).click();
        }
        await page.waitForURL(/\/connections$/);
        await page.getByRole("heading", { name: "Connections" }).waitFor();
        // Every section has loaded (connections and standing approvals each show a skeleton first).
        await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 15_000 }).toBe(0);
        await check(page, "connections", size, scheme);

        // A member's inbox: her own transfer, waiting on an approver, withdrawable.
        await page.goto(`${server.url}/approvals`);
        const own = page.getByTestId("inbox-group-waiting").getByTestId("inbox-row").filter({ hasText: IBAN });
        await expect.poll(() => own.count(), PATIENCE).toBe(1);
        await check(page, "approvals-member", size, scheme);
        await own.click();
        await page.getByTestId("inbox-detail").getByRole("button", { name: "Withdraw request" }).waitFor(PATIENCE);
        await check(page, "approvals-member-detail", size, scheme);
        await page.context().close();
      });

      it(`approvals inbox and a request (${size}, ${scheme})`, async () => {
        const page = await (await contextFor(browser, size, scheme)).newPage();
        await signInAs(page, server.url, "bob@acme.test");
        await page.goto(`${server.url}/approvals`);
        const row = page.getByTestId("inbox-row").filter({ hasText: IBAN });
        await expect.poll(() => row.count(), PATIENCE).toBe(1);
        await check(page, "approvals", size, scheme);
        // The filters fold behind one button and stack, one labelled select a line, when opened.
        await page.getByTestId("filters-toggle").click();
        await page.getByLabel("Filter by requester").waitFor();
        const boxes = await Promise.all(
          ["Filter by reason", "Filter by tool", "Filter by requester"].map(async (l) => (await page.getByLabel(l).boundingBox())!),
        );
        for (const box of boxes) expect(box.width, "a filter is cramped").toBeGreaterThanOrEqual(200);
        await check(page, "approvals-filters", size, scheme);
        await page.getByTestId("filters-toggle").click();
        await row.click();
        const detail = page.getByTestId("inbox-detail");
        await expect.poll(() => detail.textContent(), PATIENCE).toContain(IBAN);
        await check(page, "approvals-detail", size, scheme);
        if (size === "phone") {
          await page.getByRole("button", { name: "Back to requests" }).click();
          await row.waitFor();
        }
        await page.context().close();
      });

      it(`console and a run (${size}, ${scheme})`, async () => {
        const page = await (await contextFor(browser, size, scheme)).newPage();
        await signInAs(page, server.url, "carol@acme.test");
        await page.goto(`${server.url}/console`);
        const rows = page.getByTestId("run-row");
        await expect.poll(() => rows.count(), PATIENCE).toBeGreaterThan(0);
        // A phone cannot fit the console's six pages in a row: a fading edge says more lie to the right.
        const more = page.getByTestId("console-nav-more");
        await expect.poll(() => more.evaluate((e) => getComputedStyle(e).opacity), PATIENCE).toBe(size === "phone" ? "1" : "0");
        await check(page, "console", size, scheme);
        await rows.first().click();
        await expect.poll(() => page.getByTestId("timeline").textContent(), PATIENCE).toContain("#");
        await check(page, "console-run", size, scheme);
        // The paused run cannot be paused: the control reads as off (flat, dashed, no opacity wash)
        // yet stays legible in this scheme — axe does not check disabled controls' contrast.
        const steer = page.getByTestId("run-detail");
        const off = await controlLook(steer.getByRole("button", { name: "Pause", exact: true }));
        const on = await controlLook(steer.getByRole("button", { name: "Approve gate" }));
        expect(await steer.getByRole("button", { name: "Pause", exact: true }).isDisabled()).toBe(true);
        expect(off.opacity).toBe(1);
        expect(off.contrast, "a disabled control's text is hard to read").toBeGreaterThanOrEqual(4.5);
        expect(off.borderStyle).toBe("dashed");
        expect(on.borderStyle).toBe("solid");
        if (size === "phone") {
          await page.getByRole("button", { name: "Back to runs" }).click();
          await rows.first().waitFor();
        }
        // The run's own page, with a payload open.
        await page.goto(`${server.url}/console/runs/${await rows.first().getAttribute("data-run-id")}`);
        const entry = page.locator('[data-testid="timeline-entry"]:has(details)').first();
        await entry.waitFor(PATIENCE);
        await entry.locator("summary").click();
        await check(page, "console-run-page", size, scheme);

        // The console's other pages, and a decision link that is not one.
        await page.goto(`${server.url}/console/webhooks`);
        await page.getByRole("heading", { name: "Webhooks", level: 1 }).first().waitFor(PATIENCE);
        await expect.poll(() => page.locator('[aria-busy="true"]').count(), PATIENCE).toBe(0);
        await check(page, "console-webhooks", size, scheme);
        await page.goto(`${server.url}/console/audit`);
        await page.getByText("Export audit").first().waitFor(PATIENCE);
        // The last page's link is scrolled into view, and nothing lies beyond it.
        await expect.poll(() => more.evaluate((e) => getComputedStyle(e).opacity), PATIENCE).toBe("0");
        await check(page, "console-audit", size, scheme);
        await page.goto(`${server.url}/decide/not-a-link`);
        await page.getByTestId("link-invalid").waitFor(PATIENCE);
        await check(page, "decide-invalid", size, scheme);

        await page.goto(`${server.url}/chat/not-a-thread-of-anyone`);
        await page.getByRole("heading", { name: "Not found" }).waitFor();
        await check(page, "not-found", size, scheme);
        // Any unknown address: the app's header and a main landmark around the message.
        await page.goto(`${server.url}/no/such/page`);
        await page.getByRole("heading", { name: "Not found" }).waitFor();
        expect(await page.getByRole("banner").count()).toBe(1);
        expect(await page.getByRole("main").count()).toBe(1);
        expect(await page.getByRole("main").getByRole("heading", { name: "Not found" }).count()).toBe(1);
        const landmarks = (await expectAccessible(page, `not found (${size}, ${scheme})`)).filter(
          (v) => v.id === "region" || v.id.startsWith("landmark"),
        );
        expect(landmarks.map((v) => v.id)).toEqual([]);
        await check(page, "not-found-unknown-url", size, scheme);
        await page.context().close();
      });
    }
  }
});
