/**
 * How a model's answer looks in Chromium, on a server of this file's own with a scripted
 * OpenAI-compatible model: GitHub-flavoured Markdown (a table, a task list, a fenced code block)
 * renders while the words arrive and after, an open code fence is a code block in progress (never
 * raw backticks), and a code block's Copy button puts its code on the clipboard. A tool call whose
 * arguments the runtime refused is a failed step with the reason, never an approval card waiting
 * forever, and stays so after a reload. At desktop and phone size.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { startModelServer, type ChatRequest, type ModelServer, type ScriptedTurn } from "../helpers/model-server";
import { startOwnServer, type OwnServer } from "../helpers/own-server";

const PATIENCE = { timeout: 20_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

const CODE = 'const answer = 42;\nconsole.log("answer", answer);';
/** A table, a task list and a code block, then enough words that the stream is still going while the test looks. */
const GFM_REPLY = [
  "Here is the ~~old~~ new plan, see https://example.com/plan:",
  "",
  "| Step | Owner |",
  "| --- | --- |",
  "| Draft | Ana |",
  "| Review | Bo |",
  "",
  "- [x] Write the deck",
  "- [ ] Ship it",
  "",
  "```ts",
  CODE,
  "```",
  "",
  "That is all for today, and the rest of this sentence keeps the stream going a little longer while you read.",
].join("\n");

const lastUser = (request: ChatRequest) => [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";

/** While true, the model fails every request about "flaky" (after Harbor's own retries, the run fails). */
let modelDown = false;

function renderModel(request: ChatRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  if (/flaky/i.test(lastUser(request))) return modelDown ? { status: 500 } : { text: "Back up: here is your **answer**." };
  if (last?.role === "tool") return { text: "I could not send that email: my request was refused." };
  // An email "to" a number: outside send_email's schema, so the runtime refuses the call.
  if (/bad email/i.test(lastUser(request))) return { toolCalls: [{ name: "send_email", args: { to: 42, body: "Hi" } }] };
  return { text: GFM_REPLY, chunkMs: 150 };
}

describe("model output in Chromium", () => {
  const browser = useBrowser();
  let server: OwnServer;
  let model: ModelServer;

  beforeAll(async () => {
    model = await startModelServer(renderModel);
    server = await startOwnServer(process.env.TEST_DATABASE_URL ? "postgres" : "pglite", "e2e-chat-render", {
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_STREAM_CHUNK_MS: "10",
    });
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  async function assistantChat(size: keyof typeof SIZES): Promise<Page> {
    const context = await browser.newContext({ viewport: SIZES[size], hasTouch: size === "phone" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    const picker = page.getByLabel("Agent");
    await expect.poll(() => picker.locator("option").count(), PATIENCE).toBe(2);
    await picker.selectOption("assistant");
    await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the assistant help?");
    return page;
  }

  for (const size of ["desktop", "phone"] as const) {
    it(
      `at ${size} size: a table, a task list and code render while they stream and after; Copy code copies`,
      { timeout: 120_000 },
      async () => {
        const page = await assistantChat(size);
        await say(page, `Show me the plan (${size})`);

        // While the words arrive: a real table, real checkboxes, a code block — never the raw syntax.
        const live = page.locator('[data-testid="message-assistant"].streaming');
        await expect.poll(() => live.locator("table").count(), PATIENCE).toBe(1);
        // Row by row as they complete: the header first, then the body.
        await expect.poll(() => live.locator("td").allTextContents(), PATIENCE).toEqual(expect.arrayContaining(["Draft", "Ana"]));
        await expect.poll(() => live.locator("pre").count(), PATIENCE).toBe(1);
        expect(await live.locator('input[type="checkbox"]').count()).toBe(2);
        const partial = (await live.textContent()) ?? "";
        expect(partial).not.toContain("```");
        expect(partial).not.toContain("| ---");
        expect(partial).not.toContain("[ ]");
        await screenshot(page, `chat-render-${size}-streaming`);

        // After: the same, in the finished message.
        const reply = page.locator('[data-testid="message-assistant"]:not(.streaming)').last();
        await expect.poll(() => reply.textContent(), PATIENCE).toContain("while you read");
        expect(await reply.locator("th").allTextContents()).toEqual(["Step", "Owner"]);
        expect(await reply.locator("tbody tr").count()).toBe(2);
        const boxes = reply.locator('input[type="checkbox"]');
        expect(await boxes.count()).toBe(2);
        expect(await boxes.nth(0).isChecked()).toBe(true);
        expect(await boxes.nth(1).isChecked()).toBe(false);
        expect(await reply.locator("del", { hasText: "old" }).count()).toBe(1);
        expect(await reply.locator('a[href="https://example.com/plan"]').count()).toBe(1);
        expect(await reply.locator("pre code").textContent()).toBe(`${CODE}\n`);
        expect(await reply.textContent()).not.toContain("```");

        // Copy code: on the clipboard, and the button says so.
        const copy = reply.getByRole("button", { name: "Copy code" });
        await copy.click();
        await expect.poll(() => reply.getByRole("button", { name: "Copied" }).count(), PATIENCE).toBe(1);
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
        await screenshot(page, `chat-render-${size}-rendered`);
        await page.context().close();
      },
    );

    it(
      `at ${size} size: a call the runtime refused is a failed step with the reason, also after a reload`,
      { timeout: 120_000 },
      async () => {
        const page = await assistantChat(size);
        await say(page, `Send a bad email (${size})`);
        await expect
          .poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE)
          .toContain("I could not send that email");
        // Reloaded only once the conversation has its own address.
        await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
        for (const when of ["live", "reloaded"]) {
          const step = page.locator('[data-testid="tool-note"][data-status="failed"]');
          await expect.poll(() => step.count(), { ...PATIENCE, message: when }).toBe(1);
          expect(await step.textContent()).toContain("do not match its schema");
          expect(await page.getByTestId("approval-card").count()).toBe(0);
          expect(await page.getByTestId("messages").textContent()).not.toContain("Loading the request");
          await screenshot(page, `chat-render-${size}-refused-${when}`);
          if (when === "live") await page.reload();
        }
        await page.context().close();
      },
    );

    it(
      `at ${size} size: a run that failed before it answered offers Retry, which answers the same message`,
      { timeout: 120_000 },
      async () => {
        const page = await assistantChat(size);
        await say(page, `Show me the plan first (${size})`);
        await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
        await page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
        modelDown = true;
        await say(page, `A flaky question (${size})`);
        const failure = page.getByTestId("run-error");
        await failure.waitFor({ ...PATIENCE, timeout: 60_000 });
        const retry = failure.getByRole("button", { name: "Retry" });
        await retry.waitFor(PATIENCE);
        await screenshot(page, `chat-render-${size}-failed-retry`);
        const asked = model.requests.length;
        modelDown = false;
        await retry.click();
        await expect
          .poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE)
          .toContain("Back up: here is your answer.");
        expect(await page.getByTestId("run-error").count()).toBe(0);
        // The same message was answered: not sent again.
        expect(
          await page
            .getByTestId("message-user")
            .filter({ hasText: `A flaky question (${size})` })
            .count(),
        ).toBe(1);
        expect(lastUser(model.requests.at(-1)!)).toBe(`A flaky question (${size})`);
        expect(model.requests.length).toBeGreaterThan(asked);
        await page.reload();
        await expect
          .poll(
            () =>
              page
                .getByTestId("message-user")
                .filter({ hasText: `A flaky question (${size})` })
                .count(),
            PATIENCE,
          )
          .toBe(1);
        await page.context().close();
      },
    );
  }
});
