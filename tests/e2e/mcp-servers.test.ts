import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { SCREENSHOT_DIR, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
/** Each journey signs in, lists a real MCP server's tools and runs axe several times: more than the default minute on a busy machine. */
const SLOW = 120_000;
const SHOTS = path.join(SCREENSHOT_DIR, "mcp");
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** The demo calendar's tools and the gates their annotations give them. */
const DEFAULT_GATES = { list_events: "none", cancel_event: "approvers", book_room: "owner", share_calendar: "owner" };

interface ServerView {
  id: string;
  name: string;
}
interface ToolView {
  name: string;
  gate: string;
  quorum?: number;
  overridden: boolean;
}

async function query<T>(page: Page, procedure: string, input?: unknown): Promise<T> {
  const search = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await page.request.get(`${server.url}/api/trpc/${procedure}${search}`);
  expect(response.status(), procedure).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** The MCP servers page in Chromium: carol connects the demo's calendar in one click, re-gates a tool, and removes it. */
describe("the MCP servers page in Chromium", () => {
  const browser = useBrowser();
  let carol: Page;
  let serverId = "";
  const findings: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    carol = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    // Independent of the other tests: a calendar another one connected goes first.
    for (const s of await query<ServerView[]>(carol, "mcp.servers.list")) {
      if (s.name !== "calendar") continue;
      const removed = await carol.request.post(`${server.url}/api/trpc/mcp.servers.delete`, { data: { id: s.id } });
      expect(removed.status()).toBe(200);
    }
  });
  afterAll(async () => {
    await carol?.context().close();
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

  const tool = (page: Page, name: string) => page.locator(`[data-testid="mcp-tool"][data-tool="${name}"]`);

  it(
    "carol opens MCP servers from the console: none yet, the demo's calendar suggested, and a refused URL said under its field",
    async () => {
      await carol.getByRole("link", { name: "Console" }).click();
      await carol.waitForURL(/\/console$/);
      await carol.getByRole("link", { name: "MCP servers" }).click();
      await carol.waitForURL(/\/console\/mcp$/);
      await carol.getByRole("heading", { name: "MCP servers", level: 1 }).first().waitFor();
      await expect.poll(() => carol.getByTestId("mcp-empty").count(), PATIENCE).toBe(1);
      const suggestion = carol.getByTestId("mcp-suggestion");
      await suggestion.waitFor(PATIENCE);
      expect(await suggestion.textContent()).toContain("Connect the demo's team calendar");
      await check(carol, "empty-desktop-light");

      await carol.getByRole("button", { name: "Connect server" }).click();
      const form = carol.getByTestId("mcp-form");
      await form.getByLabel("Name", { exact: true }).fill("intranet");
      await form.getByLabel("URL", { exact: true }).fill("http://10.0.0.1/mcp");
      await form.getByRole("button", { name: "Add header" }).click();
      await form.getByLabel("Header 1 name").fill("Authorization");
      await form.getByLabel("Header 1 value").fill("Bearer not-sent");
      await form.getByRole("button", { name: "Connect server" }).click();
      // The server refuses what is not https (naming the field): said under the URL.
      await expect.poll(() => form.textContent(), PATIENCE).toContain("The URL must use https.");
      expect(await form.getByLabel("URL", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      expect(await form.getByLabel("Header 1 value").getAttribute("type")).toBe("password");
      await check(carol, "form-error-desktop-light");
      await form.getByRole("button", { name: "Cancel" }).click();
      expect(await carol.getByTestId("mcp-server-row").count()).toBe(0);
    },
    SLOW,
  );

  it(
    "connects the suggested calendar in one click: its four tools, each with the gate its annotations give",
    async () => {
      const suggestion = carol.getByTestId("mcp-suggestion");
      await suggestion.getByRole("button", { name: "Connect", exact: true }).click();
      const row = carol.getByTestId("mcp-server-row");
      await expect.poll(() => row.count(), PATIENCE).toBe(1);
      serverId = (await row.getAttribute("data-mcp-server-id"))!;
      expect(await row.textContent()).toContain("calendar");
      expect(await row.textContent()).toContain("4 tools");
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("MCP server connected");
      // Connected, it is no longer suggested.
      await expect.poll(() => suggestion.count(), PATIENCE).toBe(0);

      const detail = carol.getByTestId("mcp-server-detail");
      await expect.poll(() => detail.getAttribute("data-mcp-server-id"), PATIENCE).toBe(serverId);
      const tools = carol.getByTestId("mcp-tool");
      await expect.poll(() => tools.count(), PATIENCE).toBe(4);
      for (const [name, gate] of Object.entries(DEFAULT_GATES)) {
        expect(await tool(carol, name).getAttribute("data-gate"), name).toBe(gate);
        expect(await tool(carol, name).getByLabel(`Gate for ${name}`).inputValue(), name).toBe(gate);
        expect(await tool(carol, name).textContent(), name).toContain(`calendar__${name}`);
      }
      expect(await tool(carol, "list_events").textContent()).toContain("Read-only");
      expect(await tool(carol, "cancel_event").textContent()).toContain("Destructive");
      expect(await tool(carol, "cancel_event").getByLabel("Approvals needed").inputValue()).toBe("1");
      expect(await carol.getByRole("button", { name: "Reset to default" }).count()).toBe(0);
      await check(carol, "connected-desktop-light");
    },
    SLOW,
  );

  it(
    "carol asks the requester to approve list_events, then resets it to its default",
    async () => {
      const listEvents = tool(carol, "list_events");
      const select = listEvents.getByLabel("Gate for list_events");
      await select.selectOption("owner");
      await expect.poll(() => listEvents.getAttribute("data-gate"), PATIENCE).toBe("owner");
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Gate changed");
      const stored = () => query<ToolView[]>(carol, "mcp.servers.tools", { id: serverId });
      expect((await stored()).find((t) => t.name === "list_events")).toMatchObject({ gate: "owner", overridden: true });
      await check(carol, "gate-changed-desktop-light");

      // Its default (none) is marked in the select; Reset goes back to it and gives the select the focus.
      expect(await select.locator("option", { hasText: "(default)" }).getAttribute("value")).toBe("none");
      await listEvents.getByRole("button", { name: "Reset to default" }).click();
      await expect.poll(() => listEvents.getAttribute("data-gate"), PATIENCE).toBe("none");
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("Gate reset to its default");
      expect(await listEvents.getByRole("button", { name: "Reset to default" }).count()).toBe(0);
      expect(await select.evaluate((el) => el === document.activeElement)).toBe(true);
      expect((await stored()).find((t) => t.name === "list_events")).toMatchObject({ gate: "none", overridden: false });
    },
    SLOW,
  );

  for (const scheme of ["light", "dark"] as const) {
    for (const size of ["desktop", "phone"] as const) {
      it(
        `shows the list and the tools with their gates (${size}, ${scheme})`,
        async () => {
          const context = await browser.newContext({ viewport: SIZES[size], colorScheme: scheme, reducedMotion: "reduce" });
          const page = await context.newPage();
          await signInAs(page, server.url, "carol@acme.test");
          // The console links to it, at every size.
          await page.goto(`${server.url}/console`);
          await page.getByRole("link", { name: "MCP servers" }).click();
          await page.waitForURL(/\/console\/mcp$/);
          const row = page.locator(`[data-testid="mcp-server-row"][data-mcp-server-id="${serverId}"]`);
          await row.waitFor(PATIENCE);
          if (size === "phone") {
            // The list alone; a server opens its tools, Back returns.
            expect(await page.getByTestId("mcp-server-detail").isVisible()).toBe(false);
            await check(page, `list-${size}-${scheme}`);
          }
          await row.click();
          await expect.poll(() => page.getByTestId("mcp-server-detail").getAttribute("data-mcp-server-id"), PATIENCE).toBe(serverId);
          await expect.poll(() => page.getByTestId("mcp-tool").count(), PATIENCE).toBe(4);
          await check(page, `detail-${size}-${scheme}`);
          if (size === "phone") {
            await page.getByRole("button", { name: "Back to MCP servers" }).click();
            await row.waitFor();
            expect(await page.getByTestId("mcp-server-detail").isVisible()).toBe(false);
            await page.getByRole("button", { name: "Connect server" }).click();
            await page.getByTestId("mcp-form").getByRole("button", { name: "Add header" }).click();
            await check(page, `form-${size}-${scheme}`);
          }
          await context.close();
        },
        SLOW,
      );
    }
  }

  it(
    "carol removes the server after confirming; the calendar is suggested again",
    async () => {
      await carol.reload();
      const detail = carol.getByTestId("mcp-server-detail");
      await expect.poll(() => detail.getAttribute("data-mcp-server-id"), PATIENCE).toBe(serverId);
      await detail.getByRole("button", { name: "Remove server" }).click();
      await detail.getByRole("group", { name: "Confirm removal" }).waitFor();
      await check(carol, "remove-confirm-desktop-light");
      // Keeping it changes nothing.
      await detail.getByRole("button", { name: "Keep it" }).click();
      expect(await carol.getByTestId("mcp-server-row").count()).toBe(1);
      await detail.getByRole("button", { name: "Remove server" }).click();
      await detail.getByRole("button", { name: "Yes, remove" }).click();
      await expect.poll(() => carol.getByTestId("toast").first().textContent(), PATIENCE).toContain("MCP server removed");
      await expect.poll(() => carol.getByTestId("mcp-empty").count(), PATIENCE).toBe(1);
      await expect.poll(() => carol.getByTestId("mcp-suggestion").count(), PATIENCE).toBe(1);
      expect((await query<ServerView[]>(carol, "mcp.servers.list")).map((s) => s.name)).not.toContain("calendar");
    },
    SLOW,
  );

  it("keeps members and approvers out of /console/mcp", async () => {
    for (const email of ["alice@acme.test", "bob@acme.test"]) {
      const page = await (await browser.newContext()).newPage();
      await signInAs(page, server.url, email);
      await page.goto(`${server.url}/console/mcp`);
      await expect.poll(() => page.getByTestId("console-forbidden").textContent(), PATIENCE).toContain("Admins only");
      expect(await page.getByTestId("mcp-servers").count()).toBe(0);
      await page.context().close();
    }
  });
});
