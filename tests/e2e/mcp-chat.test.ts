/**
 * MCP tools in Chromium, on a server of this file's own with a scripted model and the demo's team
 * calendar (a real MCP server guarded by the demo identity provider), connected by an admin:
 * alice asks the assistant to cancel an event (destructive: bob approves it, four-eyes), connects
 * her calendar account when the server asks for authorization, then books a room — the server asks
 * which one in a form, and she answers it. At desktop and phone size, with axe, no sideways
 * scrolling, and a screenshot of each step.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { signInAll, trpcMutation, trpcQuery } from "../helpers/http";
import { startModelServer, type ChatRequest, type ModelServer, type ScriptedTurn } from "../helpers/model-server";
import { startOwnServer, type OwnServer } from "../helpers/own-server";

const PATIENCE = { timeout: 20_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

const lastUser = (request: ChatRequest) => [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";

/** The scripted model: a tool call for what alice asks, then the tool's answer in its own words. */
function calendarModel(request: ChatRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `Done: ${(JSON.parse(last.content ?? "{}") as { text?: string }).text ?? last.content}` };
  const asked = lastUser(request);
  const cancel = /cancel (?:the )?(.+)/i.exec(asked);
  if (cancel) return { toolCalls: [{ name: "calendar__cancel_event", args: { title: cancel[1] } }] };
  const room = /book a room for (.+)/i.exec(asked);
  if (room) return { toolCalls: [{ name: "calendar__book_room", args: { event: room[1] } }] };
  return { text: "I can cancel events and book rooms on the team calendar." };
}

describe("MCP tools in the chat, in Chromium", () => {
  const browser = useBrowser();
  let server: OwnServer;
  let model: ModelServer;

  beforeAll(async () => {
    model = await startModelServer(calendarModel);
    server = await startOwnServer(process.env.TEST_DATABASE_URL ? "postgres" : "pglite", "e2e-mcp-chat", {
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_STREAM_CHUNK_MS: "10",
    });
    // Carol, an admin, connects the demo's calendar (the console's one click, here over tRPC).
    const [carol] = await signInAll(server.url, ["carol@acme.test"]);
    const [suggestion] = (await trpcQuery<{ name: string; url: string }[]>(server.url, { cookie: carol! }, "mcp.servers.suggestions"))
      .data!;
    expect(suggestion).toMatchObject({ name: "calendar" });
    expect(
      (await trpcMutation(server.url, { cookie: carol! }, "mcp.servers.create", { name: suggestion!.name, url: suggestion!.url })).status,
    ).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  async function check(page: Page, where: string) {
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${where} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
    await expectAccessible(page, where);
  }

  const lastReply = (page: Page) => page.getByTestId("message-assistant").last().textContent();

  async function assistantChat(email: string, size: Size): Promise<Page> {
    const context = await browser.newContext({ viewport: SIZES[size] });
    const page = await context.newPage();
    await signInAs(page, server.url, email);
    const picker = page.getByLabel("Agent");
    await expect.poll(() => picker.locator("option").count(), PATIENCE).toBe(2);
    await picker.selectOption("assistant");
    return page;
  }

  /** Alice connects her calendar account at the provider when the server asks (the first time only). */
  async function connectIfAsked(page: Page, size: Size) {
    const consent = page.getByTestId("oauth-card").filter({ has: page.locator('[data-status="pending"]') });
    const asked = await consent
      .first()
      .waitFor({ timeout: 5_000 })
      .then(() => true)
      .catch(() => false);
    if (!asked) return;
    await screenshot(page, `mcp-chat-consent-${size}`);
    const opened = page.waitForEvent("popup");
    await consent.first().getByRole("button", { name: "Connect" }).click();
    const provider = await opened;
    await provider.locator('input[name="email"]').fill("alice@acme.test");
    await provider.locator('input[name="password"]').fill("harbor");
    await provider.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => provider.locator("body").textContent(), PATIENCE).toContain("Harbor wants to");
    const closed = provider.waitForEvent("close", PATIENCE);
    await provider.getByRole("button", { name: "Allow" }).click();
    await closed;
  }

  for (const size of ["desktop", "phone"] as const satisfies readonly Size[]) {
    it(`at ${size} size: bob approves alice's destructive call, she answers the server's question`, { timeout: 180_000 }, async () => {
      const alice = await assistantChat("alice@acme.test", size);
      const event = size === "desktop" ? "Team standup" : "Quarterly planning review";
      await say(alice, `cancel the ${event}`);
      const gate = alice.getByTestId("approval-card").last();
      await expect.poll(() => gate.getAttribute("data-status"), PATIENCE).toBe("pending");
      expect(await gate.textContent()).toContain("calendar: Cancel an event");
      // Destructive: another approver decides, alice cannot.
      expect(await gate.getByRole("button", { name: "Approve" }).count()).toBe(0);
      await check(alice, `an MCP call waiting for another approver at ${size}`);
      await screenshot(alice, `mcp-chat-waiting-${size}`);

      const bob = await browser.newContext({ viewport: SIZES[size] }).then((c) => c.newPage());
      await signInAs(bob, server.url, "bob@acme.test");
      await bob.goto(`${server.url}/approvals`);
      const row = bob.getByTestId("inbox-row").filter({ hasText: event });
      await row.first().click();
      const detail = bob.getByTestId("inbox-detail");
      await detail.getByRole("button", { name: "Approve" }).click();
      await screenshot(bob, `mcp-chat-bob-approved-${size}`);
      await bob.context().close();

      await connectIfAsked(alice, size);
      await expect.poll(() => lastReply(alice), PATIENCE).toContain(`Cancelled "${event}"`);

      await say(alice, "book a room for planning");
      const ownGate = alice.getByTestId("approval-card").last();
      await expect.poll(() => ownGate.getAttribute("data-status"), PATIENCE).toBe("pending");
      await ownGate.getByRole("button", { name: "Approve" }).click();
      const question = alice.getByTestId("mcp-question").last();
      await expect.poll(() => question.getAttribute("data-status"), PATIENCE).toBe("pending");
      expect(await question.textContent()).toContain('Which room should "planning" have');
      await check(alice, `an MCP server's form at ${size}`);
      await screenshot(alice, `mcp-chat-form-${size}`);
      await question.getByLabel("Room").selectOption("Lighthouse");
      await question.getByLabel("Minutes").fill("45");
      await question.getByRole("button", { name: "Send" }).click();
      await expect.poll(() => lastReply(alice), PATIENCE).toContain("Booked Lighthouse");
      await expect.poll(() => question.getAttribute("data-status"), PATIENCE).toBe("resolved");
      expect(await question.textContent()).toContain("Answered · sent to calendar");
      await check(alice, `an answered MCP form at ${size}`);
      await screenshot(alice, `mcp-chat-answered-${size}`);
      await alice.context().close();
    });
  }
});
