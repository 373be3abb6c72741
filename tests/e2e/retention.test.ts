import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, runTurn, userMessage } from "../helpers/agui";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { SCREENSHOT_DIR, signInAs, useBrowser } from "../helpers/browser";
import { signIn } from "../helpers/http";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
/** Each journey signs in, runs a conversation and runs axe several times: more than the default minute on a busy machine. */
const SLOW = 120_000;
const SHOTS = path.join(SCREENSHOT_DIR, "retention");
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** A hash like the audit chain's (sha-256, hex), for the answer patched to show an anchor. */
const ANCHOR_HASH = "9f3a1c0b7d5e4a2f8c6b1e0d9a7f5c3b2e1d0c9b8a7f6e5d4c3b2a1f0e9dc2e4";

interface View {
  conversationDays: number;
  auditDays: number;
  own: { conversationDays: number | null; auditDays: number | null };
  defaults: { conversationDays: number; auditDays: number };
  nextSweepAt: string;
  next: { conversations: { before: string; count: number } | null; audit: { before: string; rows: number } | null };
}
interface User {
  userId: string;
  email: string;
  conversations: number;
}

async function query<T>(page: Page, procedure: string): Promise<T> {
  const response = await page.request.get(`${server.url}/api/trpc/${procedure}`);
  expect(response.status(), procedure).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** Back to the deployment's defaults, so each journey starts from them whatever ran before. */
async function resetPolicy(page: Page): Promise<void> {
  const reset = await page.request.post(`${server.url}/api/trpc/retention.set`, { data: { conversationDays: null, auditDays: null } });
  expect(reset.status()).toBe(200);
}

/** One finished conversation of bob's, through the AG-UI endpoint, so there is something to erase. */
async function bobSaysHello(): Promise<void> {
  const cookie = await signIn(server.url, "bob@acme.test");
  await runTurn(AGUI_CLIENTS[0]!, { baseUrl: server.url, auth: { cookie }, threadId: randomUUID(), messages: [userMessage("hello")] });
}

/** The day a date is shown as on the page (the browser's locale; the year when it is not this one). */
const dayInPage = (page: Page, iso: string) =>
  page.evaluate((d) => {
    const date = new Date(d);
    const otherYear = date.getFullYear() !== new Date().getFullYear();
    return date.toLocaleDateString(undefined, { day: "numeric", month: "short", ...(otherYear ? { year: "numeric" } : {}) });
  }, iso);

/** The data retention page in Chromium: carol reads the defaults, keeps conversations 30 days, erases bob's; alice is kept out. */
describe("the data retention page in Chromium", () => {
  const browser = useBrowser();
  const findings: string[] = [];

  beforeAll(() => {
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    // The server is shared with the other e2e files: leave the tenant on the deployment's defaults.
    const page = await (await browser.newContext()).newPage();
    await signInAs(page, server.url, "carol@acme.test");
    await resetPolicy(page);
    await page.context().close();
    if (findings.length > 0) console.info(`axe, milder findings:\n${[...new Set(findings)].join("\n")}`);
  });

  /**
   * Nothing scrolls sideways, axe finds nothing serious, and screenshots are saved: the screen as
   * it is, and (the page scrolls inside its own pane) the whole page on a screen tall enough for it.
   */
  async function check(page: Page, name: string): Promise<void> {
    await page.evaluate(() => document.fonts.ready);
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
    for (const v of await expectAccessible(page, name)) findings.push(`[${v.impact}] ${v.id} on ${name}: ${v.help}`);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
    const viewport = page.viewportSize()!;
    const height = await page.getByTestId("retention").evaluate((el) => el.scrollHeight + 56);
    if (height > viewport.height) {
      await page.setViewportSize({ width: viewport.width, height });
      await page.screenshot({ path: path.join(SHOTS, `${name}-whole.png`) });
      await page.setViewportSize(viewport);
    }
  }

  for (const size of ["desktop", "phone"] as const) {
    describe(`at ${size} size`, () => {
      let carol: Page;

      beforeAll(async () => {
        const context = await browser.newContext({ viewport: SIZES[size], reducedMotion: "reduce" });
        carol = await context.newPage();
        await signInAs(carol, server.url, "carol@acme.test");
        await resetPolicy(carol);
      });
      afterAll(async () => {
        await carol?.context().close();
      });

      it(
        "carol opens Data retention from the console: the deployment's default keeps everything",
        async () => {
          await carol.goto(`${server.url}/console`);
          // The console links to it beside its other admin pages, at every size.
          await expect.poll(() => carol.getByTestId("scheduler").textContent(), PATIENCE).toMatch(/running/);
          await carol.screenshot({ path: path.join(SHOTS, `console-${size}.png`) });
          await carol.getByRole("link", { name: "Data retention" }).click();
          await carol.waitForURL(/\/console\/retention$/);
          await carol.getByRole("heading", { name: "Data retention", level: 1 }).waitFor();
          const conversations = carol.getByTestId("policy-conversations");
          await expect.poll(() => conversations.textContent(), PATIENCE).toContain("Kept forever");
          expect(await conversations.textContent()).toContain("Deployment default");
          expect(await carol.getByTestId("policy-audit").textContent()).toContain("Kept forever");
          expect(await carol.getByTestId("policy-audit").textContent()).toContain("Deployment default");
          expect(await carol.getByTestId("sweep-conversations").textContent()).toBe("Conversations are kept forever.");
          expect(await carol.getByTestId("sweep-audit").textContent()).toBe("Audit rows are kept forever.");
          expect(await carol.getByTestId("sweep-held").textContent()).toContain("is never deleted");
          // The sweep runs as the server starts: there is a last one.
          expect(await carol.getByTestId("sweep-last").textContent()).toMatch(/^Last sweep at .+ \(\d+[smhd] ago\)\.$/);
          await check(carol, `default-${size}`);
        },
        SLOW,
      );

      it(
        "carol keeps conversations 30 days: a wrong number is said under its field, then the policy is saved",
        async () => {
          await carol.getByRole("button", { name: "Edit policy" }).click();
          const form = carol.getByTestId("retention-form");
          const conversations = form.getByRole("group", { name: "Conversations" });
          // The keyboard starts on the conversations' choice: the deployment's default.
          const defaultChoice = conversations.getByRole("radio", { name: /Use the deployment's default/ });
          await expect.poll(() => defaultChoice.evaluate((el) => el === document.activeElement)).toBe(true);
          expect(await defaultChoice.isChecked()).toBe(true);

          await conversations.getByRole("radio", { name: "Delete after a number of days" }).check();
          const days = conversations.getByLabel("Days without activity");
          await days.fill("2.5");
          await form.getByRole("button", { name: "Save policy" }).click();
          const error = form.getByTestId("conversations-days-error");
          await expect.poll(() => error.textContent()).toBe("Enter whole days, in digits: 30, for example.");
          expect(await days.getAttribute("aria-invalid")).toBe("true");
          expect(await days.evaluate((el) => el === document.activeElement)).toBe(true);
          await days.fill("40000");
          await form.getByRole("button", { name: "Save policy" }).click();
          await expect.poll(() => error.textContent()).toBe("Enter between 1 and 36,500 days, or choose Keep forever.");
          await check(carol, `form-error-${size}`);

          await days.fill("30");
          expect(await error.count()).toBe(0);
          await form.getByRole("button", { name: "Save policy" }).click();
          await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Retention policy saved");
          expect(await carol.getByTestId("toast").first().textContent()).toContain(
            "Conversations: kept 30 days. Audit log: the deployment's default (kept forever).",
          );
          const policy = carol.getByTestId("policy-conversations");
          await expect.poll(() => policy.textContent(), PATIENCE).toContain("Kept 30 days");
          expect(await policy.textContent()).toContain("Your setting");
          expect(await policy.textContent()).toContain("The deployment's default would be: kept forever.");
          expect(await carol.getByTestId("policy-audit").textContent()).toContain("Deployment default");
          // The form closed: the keyboard is back on Edit.
          await expect
            .poll(() => carol.getByRole("button", { name: "Edit policy" }).evaluate((el) => el === document.activeElement))
            .toBe(true);

          const stored = await query<View>(carol, "retention.get");
          expect(stored.own).toEqual({ conversationDays: 30, auditDays: null });
          expect(stored.conversationDays).toBe(30);
          // Every conversation of this test server is younger than 30 days: nothing is due, as of 30 days before the sweep.
          expect(stored.next.conversations?.count).toBe(0);
          const since = await dayInPage(carol, stored.next.conversations!.before);
          expect(await carol.getByTestId("sweep-conversations").textContent()).toBe(
            `Nothing is due: no conversation has gone untouched since ${since}.`,
          );
          expect(await carol.getByTestId("sweep-audit").textContent()).toBe("Audit rows are kept forever.");
          await check(carol, `saved-${size}`);
        },
        SLOW,
      );

      it(
        "carol erases bob's conversations once his email is typed; nothing happens before",
        async () => {
          await bobSaysHello();
          const bob = (await query<User[]>(carol, "retention.users")).find((u) => u.email === "bob@acme.test")!;
          expect(bob.conversations).toBeGreaterThan(0);
          await carol.reload();
          const card = carol.getByTestId("retention-erase");
          const user = card.getByLabel("User", { exact: true });
          await user.waitFor(PATIENCE);
          await user.selectOption(bob.userId);
          const many = bob.conversations === 1 ? "1 conversation" : `${bob.conversations} conversations`;
          expect(await card.getByTestId("erase-count").textContent()).toBe(`Bob has ${many}.`);

          await card.getByRole("button", { name: "Erase conversations…" }).click();
          const confirm = card.getByRole("form", { name: "Confirm erasure" });
          await confirm.waitFor();
          // The typed email is asked for first: the field has the focus, the button waits for it.
          const typed = confirm.getByLabel("Type bob@acme.test to confirm");
          await expect.poll(() => typed.evaluate((el) => el === document.activeElement)).toBe(true);
          const erase = confirm.getByRole("button", { name: `Erase ${many}` });
          expect(await erase.isDisabled()).toBe(true);
          expect(await user.isDisabled()).toBe(true);
          await typed.fill("alice@acme.test");
          await typed.press("Enter");
          expect(await erase.isDisabled()).toBe(true);
          await typed.fill("bob@acme.test");
          expect(await erase.isEnabled()).toBe(true);
          await confirm.scrollIntoViewIfNeeded();
          await check(carol, `erase-confirm-${size}`);

          // Cancel keeps everything.
          await confirm.getByRole("button", { name: "Cancel" }).click();
          expect((await query<User[]>(carol, "retention.users")).find((u) => u.email === "bob@acme.test")?.conversations).toBe(
            bob.conversations,
          );
          await card.getByRole("button", { name: "Erase conversations…" }).click();
          await confirm.getByLabel("Type bob@acme.test to confirm").fill("bob@acme.test");
          await confirm.getByRole("button", { name: `Erase ${many}` }).click();

          const result = card.getByTestId("erase-result");
          await expect.poll(() => result.textContent(), PATIENCE).toBe(`bob@acme.test: Erased ${many}.`);
          await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Conversations erased");
          await expect.poll(() => card.getByTestId("erase-count").textContent(), PATIENCE).toBe("Bob has no conversations.");
          expect(await card.getByRole("button", { name: "Erase conversations…" }).isDisabled()).toBe(true);
          expect((await query<User[]>(carol, "retention.users")).find((u) => u.email === "bob@acme.test")?.conversations).toBe(0);
          await check(carol, `erased-${size}`);
        },
        SLOW,
      );
    });
  }

  /**
   * What a tenant with old data sees: the answer of `retention.get` is patched (the test server's
   * data is minutes old, and an anchor needs audit rows days old) to what is due and an anchor.
   */
  async function patchView(route: Route): Promise<void> {
    const response = await route.fetch();
    const url = new URL(route.request().url());
    const procedures = decodeURIComponent(url.pathname.slice("/api/trpc/".length)).split(",");
    const body = (await response.json()) as { result: { data: View & Record<string, unknown> } }[];
    const index = procedures.indexOf("retention.get");
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    const data = body[index]!.result.data;
    body[index]!.result.data = {
      ...data,
      conversationDays: 30,
      auditDays: 365,
      own: { conversationDays: 30, auditDays: null },
      defaults: { conversationDays: 0, auditDays: 365 },
      lastSweepAt: at(-8 * 60_000),
      nextSweepAt: at(52 * 60_000),
      next: {
        conversations: { before: at(52 * 60_000 - 30 * 86_400_000), count: 12 },
        audit: { before: at(52 * 60_000 - 365 * 86_400_000), rows: 1_234 },
      },
      oldestConversationAt: at(-75 * 86_400_000),
      auditAnchor: { seq: 1_234, hash: ANCHOR_HASH, createdAt: at(-8 * 60_000) },
    };
    await route.fulfill({ response, json: body });
  }

  for (const scheme of ["light", "dark"] as const) {
    for (const size of ["desktop", "phone"] as const) {
      it(
        `says what is due and where the audit chain enters (${size}, ${scheme})`,
        async () => {
          const context = await browser.newContext({ viewport: SIZES[size], colorScheme: scheme, reducedMotion: "reduce" });
          await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
          const page = await context.newPage();
          await signInAs(page, server.url, "carol@acme.test");
          await page.route((url) => url.pathname.startsWith("/api/trpc/") && url.pathname.includes("retention.get"), patchView);
          await page.goto(`${server.url}/console/retention`);
          const conversations = page.getByTestId("sweep-conversations");
          await expect
            .poll(() => conversations.textContent(), PATIENCE)
            .toMatch(/^At .+ \(in 5[12] min\), 12 conversations untouched since /);
          expect(await conversations.textContent()).toMatch(/ will be deleted\.$/);
          expect(await page.getByTestId("sweep-audit").textContent()).toMatch(
            /^At .+ \(in 5[12] min\), 1,234 audit rows from before .+ will be deleted\.$/,
          );
          const anchor = page.getByTestId("sweep-anchor");
          expect(await anchor.textContent()).toContain(
            "The audit chain now starts after row 1,234; its hash 9f3a1c…c2e4 is what a verified export must enter with.",
          );
          expect(await page.getByTestId("sweep-last").textContent()).toMatch(/^Last sweep at .+ \(8m ago\)\.$/);
          expect(await page.getByTestId("policy-audit").textContent()).toContain("Kept 365 days");
          await anchor.getByRole("button", { name: "Copy the full hash" }).click();
          await anchor.getByRole("button", { name: "Hash copied" }).waitFor();
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ANCHOR_HASH);
          await check(page, `due-${size}-${scheme}`);

          // The form in this scheme too, with the audit's days open.
          await page.getByRole("button", { name: "Edit policy" }).click();
          const audit = page.getByTestId("retention-form").getByRole("group", { name: "Audit log" });
          await audit.getByRole("radio", { name: "Delete after a number of days" }).check();
          await audit.getByLabel("Days a row is kept").fill("400");
          await check(page, `form-${size}-${scheme}`);
          await context.close();
        },
        SLOW,
      );
    }
  }

  it("keeps members and approvers out of /console/retention", async () => {
    for (const email of ["alice@acme.test", "bob@acme.test"]) {
      const page = await (await browser.newContext()).newPage();
      await signInAs(page, server.url, email);
      await page.goto(`${server.url}/console/retention`);
      await expect.poll(() => page.getByTestId("console-forbidden").textContent(), PATIENCE).toContain("Admins only");
      expect(await page.getByTestId("retention").count()).toBe(0);
      if (email === "alice@acme.test") await page.screenshot({ path: path.join(SHOTS, "forbidden-alice.png") });
      // The API refuses them too.
      const answer = await page.request.get(`${server.url}/api/trpc/retention.get`);
      expect(answer.status(), email).toBe(403);
      await page.context().close();
    }
  });
});
