/**
 * The model budgets page in Chromium, on a server of this file's own with a scripted model that
 * reports its usage over real HTTP: alice and bob ask the assistant over AG-UI; carol (admin) reads
 * each one's tokens as the model reported them, sets the workspace's daily budget (a typo is said
 * under its field), and sees the meter turn amber, then red — and alice's next run is refused
 * before the model is asked. Alice (member) sees only her own use, and no form. At desktop and
 * phone size, light and dark, with axe and no sideways scrolling, and screenshots of each step.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGUI_CLIENTS, runError, runTurn, userMessage } from "../helpers/agui";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { SCREENSHOT_DIR, signInAs, useBrowser } from "../helpers/browser";
import { signInCast, type Auth } from "../helpers/http";
import { startModelServer, type ChatRequest, type ModelServer, type ScriptedTurn } from "../helpers/model-server";
import { startOwnServer, type OwnServer } from "../helpers/own-server";

const PATIENCE = { timeout: 20_000 };
/** Each journey signs in, saves a form and runs axe several times: more than the default minute on a busy machine. */
const SLOW = 120_000;
const SHOTS = path.join(SCREENSHOT_DIR, "budgets");
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;
/** The deployment's default for each user's month, so a member has a meter to read. */
const USER_MONTHLY = 500_000;

/** What the scripted model reports for one request: alice's is large, bob's small (41,200 tokens together). */
const USAGE = { alice: { prompt: 30_000, completion: 9_200 }, bob: { prompt: 1_600, completion: 400 } };

const lastUser = (request: ChatRequest) => [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";

function budgetModel(request: ChatRequest): ScriptedTurn {
  return { text: "Noted.", usage: lastUser(request).includes("bob") ? USAGE.bob : USAGE.alice };
}

interface View {
  own: Record<string, number | null>;
  limits: Record<string, number>;
  usage: { email: string | null; day: { inputTokens: number; outputTokens: number; requests: number } }[];
}

describe("the model budgets page in Chromium", () => {
  const browser = useBrowser();
  let model: ModelServer;
  let server: OwnServer;
  let alice: Auth;
  let bob: Auth;
  const findings: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    model = await startModelServer(budgetModel);
    server = await startOwnServer(process.env.TEST_DATABASE_URL ? "postgres" : "pglite", "e2e-budgets", {
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_BUDGET_USER_MONTHLY_TOKENS: String(USER_MONTHLY),
    });
    ({ alice, bob } = await signInCast(server.url));
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
    if (findings.length > 0) console.info(`axe, milder findings:\n${[...new Set(findings)].join("\n")}`);
  });

  /** One message to the assistant over AG-UI: the model is asked once and reports its usage. */
  const ask = (auth: Auth, text: string, ends?: "RUN_ERROR") =>
    runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth,
      threadId: randomUUID(),
      messages: [userMessage(text)],
      agentId: "assistant",
      ends,
    });

  async function open(size: Size, email: string, scheme: "light" | "dark" = "light"): Promise<Page> {
    const context = await browser.newContext({ viewport: SIZES[size], colorScheme: scheme, reducedMotion: "reduce" });
    const page = await context.newPage();
    // A script error in the page is said in the test's output, where a failed wait alone would not tell why.
    page.on("pageerror", (error) => console.error(`${email} at ${size}: ${error.message}`));
    await signInAs(page, server.url, email);
    await page.goto(`${server.url}/console/budgets`);
    await page.getByTestId("budgets").waitFor(PATIENCE);
    return page;
  }

  async function view(page: Page): Promise<View> {
    const response = await page.request.get(`${server.url}/api/trpc/budgets.get`);
    expect(response.status()).toBe(200);
    return ((await response.json()) as { result: { data: View } }).result.data;
  }

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
    const height = await page.getByTestId("budgets").evaluate((el) => el.scrollHeight + 56);
    if (height > viewport.height) {
      await page.setViewportSize({ width: viewport.width, height });
      await page.screenshot({ path: path.join(SHOTS, `${name}-whole.png`) });
      await page.setViewportSize(viewport);
    }
  }

  /** Picks "A number of tokens" for one limit, types `text` and saves. */
  async function setLimit(page: Page, group: string, field: string, text: string): Promise<void> {
    const form = page.getByTestId("limits-form");
    if ((await form.count()) === 0) await page.getByRole("button", { name: "Edit limits" }).click();
    const choice = form.getByRole("group", { name: group });
    await choice.getByRole("radio", { name: "A number of tokens" }).check();
    await choice.getByLabel(field).fill(text);
    await form.getByRole("button", { name: "Save limits" }).click();
  }

  it(
    "before anyone asks the model, carol sees no use and no limits",
    async () => {
      const carol = await open("desktop", "carol@acme.test");
      await carol.getByRole("heading", { name: "Model budgets", level: 1 }).waitFor();
      await expect.poll(() => carol.getByTestId("usage-empty").textContent(), PATIENCE).toContain("No model use yet this month");
      expect(await carol.getByTestId("tenant-day-text").textContent()).toBe("0 tokens today");
      expect(await carol.getByTestId("tenant-month-text").textContent()).toBe("0 tokens this month");
      expect(await carol.getByTestId("tenant-day").textContent()).toContain("No limit");
      expect(await carol.getByTestId("limit-tenantDaily").textContent()).toContain("No limit");
      expect(await carol.getByTestId("limit-tenantDaily").textContent()).toContain("Deployment default");
      expect(await carol.getByTestId("limit-userMonthly").textContent()).toContain("500,000 tokens");
      await check(carol, "empty-desktop-light");
      await carol.context().close();
    },
    SLOW,
  );

  it(
    "carol reads alice's and bob's tokens as the model reported them, most use first",
    async () => {
      await ask(alice, "How much have I used?");
      await ask(bob, "A short one from bob");
      expect(model.requests.length).toBe(2);

      const carol = await open("desktop", "carol@acme.test");
      const rows = carol.getByTestId("usage-row");
      await expect.poll(() => rows.count(), PATIENCE).toBe(2);
      expect(await rows.nth(0).getAttribute("data-user")).toBe("alice@acme.test");
      expect(await rows.nth(1).getAttribute("data-user")).toBe("bob@acme.test");
      // Today's input, output and requests, then the month's, then the share of the user limits (only the month has one).
      expect(await rows.nth(0).locator("td").allTextContents()).toEqual(["30,000", "9,200", "1", "30,000", "9,200", "1", "Month 7 %"]);
      expect(await rows.nth(1).locator("td").allTextContents()).toEqual(["1,600", "400", "1", "1,600", "400", "1", "Month < 1 %"]);
      expect(await carol.getByTestId("tenant-day-text").textContent()).toBe("41,200 tokens today");
      expect(await carol.getByTestId("tenant-day").textContent()).toContain("31,600 in · 9,600 out · 2 requests");
      // Wide screens show the table; the cards are for narrow ones.
      expect(await carol.getByTestId("usage-cards").isVisible()).toBe(false);
      await check(carol, "usage-desktop-light");
      await carol.context().close();
    },
    SLOW,
  );

  it(
    "carol sets the workspace's daily budget: a typo is said under its field, then the meter shows 82 %, then used up",
    async () => {
      const carol = await open("desktop", "carol@acme.test");
      await carol.getByTestId("usage-row").first().waitFor(PATIENCE);
      await carol.getByRole("button", { name: "Edit limits" }).click();
      const form = carol.getByTestId("limits-form");
      // The keyboard starts on the first limit's choice: the deployment's default.
      const first = form.getByRole("group", { name: "Workspace, per day" }).getByRole("radio", { name: /Use the deployment's default/ });
      await expect.poll(() => first.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await form.getByRole("group", { name: "Each user, per month" }).textContent()).toContain(
        "Use the deployment's default (500,000 tokens)",
      );

      await setLimit(carol, "Workspace, per day", "Tokens a day", "50.5");
      const error = form.getByTestId("tenantDaily-error");
      await expect.poll(() => error.textContent()).toBe("Enter a whole number, 0 or more: 50,000 for example.");
      const field = form.getByRole("group", { name: "Workspace, per day" }).getByLabel("Tokens a day");
      expect(await field.getAttribute("aria-invalid")).toBe("true");
      expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
      await check(carol, "form-error-desktop-light");

      await field.fill("50000");
      expect(await error.count()).toBe(0);
      await form.getByRole("button", { name: "Save limits" }).click();
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Model budgets saved");
      expect(await carol.getByTestId("toast").first().textContent()).toContain(
        "Workspace: 50,000 tokens a day, no monthly limit. Each user: no daily limit, 500,000 tokens a month.",
      );
      const meter = carol.getByTestId("workspace-usage").getByRole("meter", { name: "Today (UTC)" });
      await meter.waitFor(PATIENCE);
      expect(await meter.getAttribute("aria-valuenow")).toBe("41200");
      expect(await meter.getAttribute("aria-valuemax")).toBe("50000");
      expect(await carol.getByTestId("tenant-day-text").textContent()).toBe("41,200 of 50,000 tokens today · 82 %");
      expect(await carol.getByTestId("tenant-day").getAttribute("data-level")).toBe("near");
      expect(await carol.getByTestId("limit-tenantDaily").textContent()).toContain("50,000 tokens");
      expect(await carol.getByTestId("limit-tenantDaily").textContent()).toContain("Your setting");
      // The form closed: the keyboard is back on Edit.
      await expect
        .poll(() => carol.getByRole("button", { name: "Edit limits" }).evaluate((el) => el === document.activeElement), PATIENCE)
        .toBe(true);
      const saved = await view(carol);
      expect(saved.own).toEqual({ tenantDaily: 50_000, tenantMonthly: null, userDaily: null, userMonthly: null });
      await check(carol, "near-desktop-light");

      await setLimit(carol, "Workspace, per day", "Tokens a day", "40,000");
      await expect.poll(() => carol.getByTestId("tenant-day-text").textContent(), PATIENCE).toBe("41,200 of 40,000 tokens today · 103 %");
      expect(await carol.getByTestId("tenant-day").getAttribute("data-level")).toBe("full");
      expect(await carol.getByTestId("tenant-day-full").textContent()).toContain("runs now stop before asking the model");
      expect(await meter.getAttribute("aria-valuenow")).toBe("40000");
      await check(carol, "full-desktop-light");

      // And so they do: alice's next run ends BUDGET_EXCEEDED, and the model is not asked.
      const asked = model.requests.length;
      const refused = await ask(alice, "One more?", "RUN_ERROR");
      expect(runError(refused.events)).toMatchObject({ code: "BUDGET_EXCEEDED", message: expect.stringContaining("41,200 of 40,000") });
      expect(model.requests.length).toBe(asked);
      await carol.context().close();
    },
    SLOW,
  );

  it(
    "at phone size carol reads a card per user and raises the budget again, nothing scrolling sideways",
    async () => {
      const carol = await open("phone", "carol@acme.test");
      const cards = carol.getByTestId("usage-card");
      await expect.poll(() => cards.count(), PATIENCE).toBe(2);
      expect(await carol.getByTestId("usage-table").isVisible()).toBe(false);
      expect(await cards.first().getAttribute("data-user")).toBe("alice@acme.test");
      expect(await cards.first().locator("td").allTextContents()).toEqual(["30,000", "9,200", "1", "30,000", "9,200", "1"]);
      expect(await cards.first().textContent()).toContain("Of user limitsMonth 7 %");
      await check(carol, "full-phone-light");

      await carol.getByRole("button", { name: "Edit limits" }).click();
      await carol.getByTestId("limits-form").getByRole("group", { name: "Workspace, per day" }).scrollIntoViewIfNeeded();
      await check(carol, "form-phone-light");
      await setLimit(carol, "Workspace, per day", "Tokens a day", "50 000");
      await expect.poll(() => carol.getByTestId("tenant-day-text").textContent(), PATIENCE).toBe("41,200 of 50,000 tokens today · 82 %");
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Model budgets saved");
      await carol.getByTestId("workspace-usage").scrollIntoViewIfNeeded();
      await check(carol, "near-phone-light");
      await carol.context().close();
    },
    SLOW,
  );

  for (const size of ["desktop", "phone"] as const) {
    it(
      `alice, a member, sees only her own use against the user limits, and no form (${size})`,
      async () => {
        const page = await open(size, "alice@acme.test");
        await page.getByRole("heading", { name: "Model budgets", level: 1 }).waitFor();
        const card = page.getByTestId("your-usage");
        await card.waitFor(PATIENCE);
        expect(await page.getByTestId("user-day-text").textContent()).toBe("39,200 tokens today");
        expect(await page.getByTestId("user-day").getAttribute("data-level")).toBe("none");
        expect(await page.getByTestId("user-month-text").textContent()).toBe("39,200 of 500,000 tokens this month · 7 %");
        expect(await card.getByRole("meter", { name: "This month (UTC)" }).getAttribute("aria-valuenow")).toBe("39200");
        expect(await card.textContent()).toContain("30,000 in · 9,200 out · 1 request");
        // Nobody else's use, no workspace totals, no limits to change, no links to the admins' console pages.
        for (const hidden of ["workspace-usage", "usage-by-user", "budget-limits", "limits-form"])
          expect(await page.getByTestId(hidden).count(), hidden).toBe(0);
        expect(await page.getByRole("button", { name: "Edit limits" }).count()).toBe(0);
        // The console's links: only the page she may open.
        expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toEqual(["Model budgets"]);
        expect(await page.content()).not.toContain("bob@acme.test");
        expect((await view(page)).usage.map((u) => u.email)).toEqual(["alice@acme.test"]);
        // The API refuses her a change too.
        const set = await page.request.post(`${server.url}/api/trpc/budgets.set`, {
          data: { tenantDaily: null, tenantMonthly: null, userDaily: null, userMonthly: null },
        });
        expect(set.status()).toBe(403);
        await check(page, `member-${size}-light`);
        await page.context().close();
      },
      SLOW,
    );
  }

  for (const size of ["desktop", "phone"] as const) {
    it(
      `reads well in the dark (${size})`,
      async () => {
        const carol = await open(size, "carol@acme.test", "dark");
        await expect.poll(() => carol.getByTestId("tenant-day-text").textContent(), PATIENCE).toContain("82 %");
        await check(carol, `near-${size}-dark`);
        await carol.getByRole("button", { name: "Edit limits" }).click();
        await setLimit(carol, "Workspace, per month", "Tokens a month", "abc");
        await carol.getByTestId("tenantMonthly-error").waitFor();
        await check(carol, `form-error-${size}-dark`);
        await carol.context().close();

        const alicePage = await open(size, "alice@acme.test", "dark");
        await expect.poll(() => alicePage.getByTestId("user-month-text").textContent(), PATIENCE).toContain("7 %");
        await check(alicePage, `member-${size}-dark`);
        await alicePage.context().close();
      },
      SLOW,
    );
  }
});
