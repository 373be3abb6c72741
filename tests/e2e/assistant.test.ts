/**
 * The model-driven `assistant` agent in Chromium, on a server of this file's own configured with a
 * scripted OpenAI-compatible model over real HTTP: alice picks the assistant, reads its streamed
 * Markdown, approves the email it wants to send (the owner's gate), and connects an API key through
 * the private form it asks for — the key never reaches the model. At desktop and phone size, with
 * axe and no sideways scrolling, and screenshots of each step.
 */
import fs from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { startModelServer, type ChatRequest, type ModelServer, type ScriptedTurn } from "../helpers/model-server";
import { startOwnServer, type OwnServer } from "../helpers/own-server";

const PATIENCE = { timeout: 20_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

const MARKDOWN_REPLY = ["Here is the **plan** for today:", "", "- Review the *deck*", "- Email the team", "- Ship it"].join("\n");

const lastUser = (request: ChatRequest) => [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";

/** The scripted model: Markdown when asked, a tool call for an email or a key, and a closing line after each tool result. */
function assistantModel(request: ChatRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role === "tool") {
    const result = last.content ?? "";
    if (result.includes('"sent":true')) return { text: "Done: the email is **sent**." };
    if (result.includes('"connected":true')) return { text: "Your API key is **connected**." };
    return { text: `Unexpected tool result: ${result}` };
  }
  const asked = lastUser(request);
  const email = /email (\S+@\S+)/i.exec(asked);
  if (email) return { toolCalls: [{ name: "send_email", args: { to: email[1], body: "The deck is ready." } }] };
  if (/api key/i.test(asked)) return { toolCalls: [{ name: "connect_api_key", args: {} }] };
  // Word by word, slowly enough for the browser to show the words arriving.
  return { text: MARKDOWN_REPLY, chunkMs: 120 };
}

describe("the assistant agent in Chromium", () => {
  const browser = useBrowser();
  let server: OwnServer;
  let model: ModelServer;

  beforeAll(async () => {
    model = await startModelServer(assistantModel);
    server = await startOwnServer(process.env.TEST_DATABASE_URL ? "postgres" : "pglite", "e2e-assistant", {
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_STREAM_CHUNK_MS: "10",
    });
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  async function checkLayout(page: Page, where: string) {
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${where} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
    await expectAccessible(page, where);
  }

  /** Waits for the run to finish: the composer opens again. */
  const composerOpen = (page: Page) => page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);

  for (const size of ["desktop", "phone"] as const satisfies readonly Size[]) {
    it(`at ${size} size: Markdown, an approved email and a private API key, all from the model's turns`, { timeout: 120_000 }, async () => {
      const context = await browser.newContext({ viewport: SIZES[size] });
      const page = await context.newPage();
      await signInAs(page, server.url, "alice@acme.test");

      // The picker offers the assistant next to the concierge.
      const picker = page.getByLabel("Agent");
      await expect.poll(() => picker.locator("option").allTextContents(), PATIENCE).toEqual(["Concierge", "Assistant"]);
      await picker.selectOption("assistant");
      await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the assistant help?");
      expect(await page.getByLabel("Message").getAttribute("placeholder")).toBe("Message the assistant (Enter to send)");
      await checkLayout(page, `the assistant's empty chat at ${size}`);
      await screenshot(page, `assistant-${size}-1-picked`);

      // 1. Streamed Markdown.
      const first = model.requests.length;
      await say(page, `What is the plan today? (${size})`);
      // The words arrive as the model sends them: a live bubble holds the first ones before the last is sent.
      const live = page.locator('[data-testid="message-assistant"].streaming');
      await expect
        .poll(async () => {
          const text = (await live.evaluateAll((nodes) => nodes.map((n) => n.textContent ?? "").join(""))) || "";
          return text.includes("plan") && !text.includes("Ship it");
        }, PATIENCE)
        .toBe(true);
      const reply = page.getByTestId("message-assistant").last();
      await expect.poll(() => reply.locator("li").allTextContents(), PATIENCE).toEqual(["Review the deck", "Email the team", "Ship it"]);
      expect(await reply.locator("strong", { hasText: "plan" }).count()).toBe(1);
      expect(await reply.locator("em", { hasText: "deck" }).count()).toBe(1);
      expect(await reply.textContent()).not.toContain("**");
      expect(await reply.locator(".message-author").textContent()).toBe("Assistant");
      expect(model.requests.length).toBe(first + 1);
      expect(lastUser(model.requests.at(-1)!)).toBe(`What is the plan today? (${size})`);
      await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
      await composerOpen(page);
      await checkLayout(page, `the assistant's Markdown at ${size}`);
      await screenshot(page, `assistant-${size}-2-markdown`);

      // 2. The model calls send_email: the owner's gate, answered by alice in the chat.
      const to = `assistant-${size}@example.com`;
      const beforeEmail = model.requests.length;
      await say(page, `Please email ${to} that the deck is ready`);
      const card = page.locator('[data-testid="approval-card"]').last();
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
      expect(await card.textContent()).toContain(to);
      expect(await card.textContent()).toContain("The deck is ready.");
      expect(await card.textContent()).toMatch(/Your approval is needed/);
      expect(await page.getByLabel("Message").getAttribute("placeholder")).toBe("Answer the request above first");
      // The model was asked once and is not asked again until the gate is answered.
      expect(model.requests.length).toBe(beforeEmail + 1);
      await checkLayout(page, `the assistant's approval card at ${size}`);
      await screenshot(page, `assistant-${size}-3-approval-pending`);

      await card.getByRole("button", { name: "Approve" }).click();
      await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain("Done: the email is sent.");
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("resolved");
      await expect.poll(() => card.textContent(), PATIENCE).toContain("Approved by you");
      expect(await page.getByTestId("message-assistant").last().locator("strong", { hasText: "sent" }).count()).toBe(1);
      // The model's next request carries the tool result, answering its own call.
      expect(model.requests.length).toBe(beforeEmail + 2);
      const called = model.requests[beforeEmail]!;
      expect(called.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(["send_email", "connect_api_key"]));
      const afterApproval = model.requests[beforeEmail + 1]!;
      const toolResult = afterApproval.messages.at(-1)!;
      expect(toolResult.role).toBe("tool");
      expect(toolResult.content).toContain('"sent":true');
      const call = afterApproval.messages.at(-2)!;
      expect(call.role).toBe("assistant");
      expect(JSON.stringify(call.tool_calls)).toContain("send_email");
      expect(JSON.stringify(call.tool_calls)).toContain(toolResult.tool_call_id!);
      // It continues the conversation: the earlier turns are still there.
      expect(JSON.stringify(afterApproval.messages)).toContain(`What is the plan today? (${size})`);
      await composerOpen(page);
      await checkLayout(page, `the assistant's approved email at ${size}`);
      await screenshot(page, `assistant-${size}-4-approved`);

      // 3. The model asks for a private value: the form appears, the key never reaches the model.
      const beforeKey = model.requests.length;
      await say(page, "Connect my API key please");
      const form = page.getByTestId("private-form").last();
      await expect.poll(() => form.getAttribute("data-status"), PATIENCE).toBe("pending");
      expect(await page.getByLabel("Message").getAttribute("placeholder")).toBe("Fill in the private form above first");
      const field = form.getByLabel("API key");
      expect(await field.getAttribute("type")).toBe("password");
      await checkLayout(page, `the assistant's private form at ${size}`);
      await screenshot(page, `assistant-${size}-5-private-form`);
      const canary = `sk-canary-${size}-${Date.now()}`;
      await field.fill(canary);
      await form.getByRole("button", { name: "Send privately" }).click();
      await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain("Your API key is connected.");
      await expect.poll(() => form.getAttribute("data-status"), PATIENCE).toBe("resolved");
      expect(model.requests.length).toBe(beforeKey + 2);
      expect(model.requests.at(-1)!.messages.at(-1)).toMatchObject({ role: "tool", content: '{"connected":true}' });
      // The canary: in no request the model server ever received, nor on the page.
      expect(JSON.stringify(model.requests)).not.toContain(canary);
      expect(await page.content()).not.toContain(canary);
      await composerOpen(page);
      await checkLayout(page, `the assistant's connected key at ${size}`);
      await screenshot(page, `assistant-${size}-6-private-sent`);

      // Reloaded, the conversation is the server's record: the same answers, and still no key.
      await page.reload();
      await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain("Your API key is connected.");
      await expect.poll(() => page.getByTestId("approval-card").last().textContent(), PATIENCE).toContain("Approved by you");
      expect(await page.getByTestId("message-assistant").first().locator("li").count()).toBe(3);
      expect(await page.content()).not.toContain(canary);
      expect(fs.readFileSync(server.logFile, "utf8")).not.toContain(canary);
      await context.close();
    });
  }
});
