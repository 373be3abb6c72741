/**
 * Trying again, in Chromium at desktop and phone size, on a server of this file's own: a model that
 * fails transiently is retried with a visible "Retrying… (attempt n of 3)" instead of a silent
 * "working…" — also after a reload mid-retry — until its answer comes; and a request that expired
 * in the chat offers Retry, which asks again (one fresh card, however often it is clicked) and,
 * approved, does the work.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { startModelServer, type ChatRequest, type ModelServer, type ScriptedTurn } from "../helpers/model-server";
import { startOwnServer, type OwnServer } from "../helpers/own-server";

const PATIENCE = { timeout: 20_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** How long an approval waits here before it expires (the fresh one after Retry too). */
const TTL_MS = 6_000;

const lastUser = (request: ChatRequest) => [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";

/** Requests seen per question: a "flaky" one fails twice (asking for 2 s, then 6 s), then answers. */
const asked = new Map<string, number>();
function flakyModel(request: ChatRequest): ScriptedTurn {
  const question = lastUser(request);
  const n = (asked.get(question) ?? 0) + 1;
  asked.set(question, n);
  if (!/flaky/i.test(question)) return { text: "Hello." };
  if (n === 1) return { status: 503, retryAfterSeconds: 2 };
  if (n === 2) return { status: 503, retryAfterSeconds: 6 };
  return { text: "Back on my feet: here is your **answer**." };
}

describe("trying again, in the chat", () => {
  const browser = useBrowser();
  let server: OwnServer;
  let model: ModelServer;

  beforeAll(async () => {
    model = await startModelServer(flakyModel);
    server = await startOwnServer(process.env.TEST_DATABASE_URL ? "postgres" : "pglite", "e2e-chat-retry", {
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_STREAM_CHUNK_MS: "10",
      HARBOR_APPROVAL_TTL_MS: String(TTL_MS),
      HARBOR_SWEEP_MS: "200",
    });
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  async function chatAs(size: keyof typeof SIZES, agent: "assistant" | "concierge"): Promise<Page> {
    const context = await browser.newContext({ viewport: SIZES[size], hasTouch: size === "phone" });
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    if (agent === "assistant") {
      const picker = page.getByLabel("Agent");
      await expect.poll(() => picker.locator("option").count(), PATIENCE).toBe(2);
      await picker.selectOption("assistant");
      await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the assistant help?");
    }
    return page;
  }

  for (const size of ["desktop", "phone"] as const) {
    it(
      `at ${size} size: a model that fails is retried with a visible notice, also after a reload, then answers`,
      { timeout: 120_000 },
      async () => {
        const page = await chatAs(size, "assistant");
        await say(page, `A flaky question (${size})`);
        const notice = page.getByTestId("run-retrying");
        await expect.poll(() => notice.textContent(), PATIENCE).toContain("Retrying… (attempt 2 of 3)");
        expect(await page.getByTestId("messages").textContent()).not.toContain("is working…");
        expect(await notice.getAttribute("role")).toBe("status");
        await screenshot(page, `chat-retry-${size}-retrying`);
        await expect.poll(() => notice.textContent(), PATIENCE).toContain("Retrying… (attempt 3 of 3)");

        // A reload during the second wait (6 s) shows it again, read from the run's log.
        await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
        await page.reload();
        await expect.poll(() => page.getByTestId("run-retrying").textContent(), PATIENCE).toContain("Retrying… (attempt 3 of 3)");
        await screenshot(page, `chat-retry-${size}-retrying-reloaded`);

        // The answer replaces the notice.
        await expect
          .poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE)
          .toContain("Back on my feet: here is your answer.");
        expect(await page.getByTestId("run-retrying").count()).toBe(0);
        expect(await page.getByTestId("run-error").count()).toBe(0);
        expect(asked.get(`A flaky question (${size})`)).toBe(3);
        await screenshot(page, `chat-retry-${size}-answered`);
        await page.context().close();
      },
    );

    it(
      `at ${size} size: a request that expired offers Retry, which asks again once — approved, the email goes`,
      { timeout: 120_000 },
      async () => {
        const page = await chatAs(size, "concierge");
        const to = `again-${size}@example.com`;
        await say(page, `send an email to ${to} saying hello again`);
        const cards = page.getByTestId("approval-card");
        await expect.poll(() => cards.first().getAttribute("data-status"), PATIENCE).toBe("pending");
        await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);

        // Nobody decides: it expires, and says so with a Retry.
        await expect.poll(() => cards.first().getAttribute("data-status"), { timeout: TTL_MS + 15_000 }).toBe("expired");
        const retry = cards.first().getByRole("button", { name: "Retry" });
        await retry.waitFor(PATIENCE);
        expect(await cards.first().textContent()).toContain("Expired before anyone decided");
        await expectAccessible(page, `an expired request with Retry (${size})`);
        await screenshot(page, `chat-retry-${size}-expired`);

        // A double click asks once: one fresh card, the message not sent again.
        await retry.dblclick();
        await expect.poll(() => cards.count(), PATIENCE).toBe(2);
        const fresh = cards.nth(1);
        await expect.poll(() => fresh.getAttribute("data-status"), PATIENCE).toBe("pending");
        expect(await fresh.textContent()).toContain(to);
        expect(await cards.first().getByRole("button", { name: "Retry" }).count()).toBe(0);
        await screenshot(page, `chat-retry-${size}-asked-again`);
        await fresh.getByRole("button", { name: "Approve" }).click();
        await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain(`Email sent to ${to}.`);

        // The server's record says the same: one message, the expired request, then the approved one.
        await page.reload();
        await expect.poll(() => page.getByTestId("approval-card").count(), PATIENCE).toBe(2);
        await expect.poll(() => page.getByTestId("approval-card").nth(1).getAttribute("data-status"), PATIENCE).toBe("resolved");
        expect(await page.getByTestId("approval-card").first().getAttribute("data-status")).toBe("expired");
        expect(await page.getByRole("button", { name: "Retry" }).count()).toBe(0);
        expect(await page.getByTestId("message-user").filter({ hasText: to }).count()).toBe(1);
        await screenshot(page, `chat-retry-${size}-done`);
        await page.context().close();
      },
    );
  }
});
