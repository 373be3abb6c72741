/**
 * What alice is told about her runs (issue 11, defect 4): an operator's cancel ends her chat with
 * a note — live and after a reload — and a run waiting for its turn says how many are ahead. The
 * runtime emits `run.cancelled` / `run.queued` and keeps the note in the thread.
 */
import fs from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { startServer } from "../helpers/server";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };

/** Carol's console, on alice's newest top-level running run. */
/** Opens the console's row of the run on `threadId` (other tests' runs may be running too). */
async function openRunOf(carol: Page, baseUrl: string, threadId: string) {
  await carol.goto(`${baseUrl}/console`);
  const row = carol.locator(`[data-testid="run-row"][data-thread-id="${threadId}"][data-status="running"]`);
  await expect.poll(() => row.count(), PATIENCE).toBe(1);
  // Kept by its id: the row stays the same run when its status changes.
  const byId = carol.locator(`[data-testid="run-row"][data-run-id="${await row.getAttribute("data-run-id")}"]`);
  await byId.click();
  return { row: byId, detail: carol.getByTestId("run-detail") };
}

describe("alice is told what happened to her run", () => {
  const browser = useBrowser();

  it("an operator cancels her counting: the chat says so at once, as a note, and again after a reload", async () => {
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, "count slowly to 37");
    await expect.poll(() => alice.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThanOrEqual(2);
    // Her conversation, by its title (the page's address changes only once the run is done).
    const threads = (await (await alice.request.get(`${server.url}/api/trpc/threads.list`)).json()) as {
      result: { data: { id: string; title: string }[] };
    };
    const threadId = threads.result.data.find((t) => t.title === "count slowly to 37")!.id;

    const carol = await (await browser.newContext()).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    const { row, detail } = await openRunOf(carol, server.url, threadId);
    await detail.getByRole("button", { name: "Cancel (isolate)" }).click();
    await detail.getByRole("button", { name: "Confirm cancel this run only" }).click();
    await expect.poll(() => row.getAttribute("data-status"), PATIENCE).toBe("cancelled");

    // Live: the stream alice follows ends with run.cancelled, shown as a note (not a bubble).
    const note = alice.getByTestId("system-note");
    await expect.poll(() => note.count(), PATIENCE).toBe(1);
    expect(await note.textContent()).toBe("Run cancelled by an operator.");
    expect(await alice.getByTestId("message-system").count()).toBe(0);
    expect(await alice.getByText("The concierge is working…").count()).toBe(0);
    await expect.poll(() => alice.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
    expect(await alice.getByTestId("messages").textContent()).not.toContain("Done counting to 37.");
    await screenshot(alice, "chat-run-cancelled");

    // After a reload: the thread's own note, once.
    await alice.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await alice.reload();
    await expect.poll(() => alice.getByTestId("system-note").count(), PATIENCE).toBe(1);
    expect(await alice.getByTestId("system-note").textContent()).toMatch(/cancelled by an operator/i);
    await alice.context().close();
    await carol.context().close();
  });

  it("renders the wire's run.cancelled ending as a note, whatever the runtime behind it (a stubbed stream)", async () => {
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, "hello");
    await alice.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
    await expect.poll(() => alice.getByTestId("message-assistant").count(), PATIENCE).toBe(1);
    const threadId = new URL(alice.url()).pathname.split("/").at(-1)!;
    // Exactly the events the contract names for a run an operator cancels while its owner follows it.
    const runId = "stub-run";
    const events = [
      { type: "RUN_STARTED", threadId, runId },
      { type: "CUSTOM", name: "run.queued", value: { runId, position: 2 } },
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "1" },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      { type: "CUSTOM", name: "run.cancelled", value: { runId, by: { role: "operator" } } },
      { type: "RUN_FINISHED", threadId, runId, result: { status: "cancelled" } },
    ];
    await alice.route("**/api/agents/concierge/runs", (route) =>
      route.fulfill({
        status: 200,
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform" },
        body: events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""),
      }),
    );
    await say(alice, "count slowly to 40");
    const note = alice.getByTestId("system-note");
    await expect.poll(() => note.count(), PATIENCE).toBe(1);
    expect(await note.textContent()).toBe("Run cancelled by an operator.");
    expect(await note.getAttribute("role")).toBe("note");
    expect(await alice.getByTestId("run-error").count()).toBe(0);
    await expect.poll(() => alice.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
    await screenshot(alice, "chat-run-cancelled-stubbed");
    await alice.setViewportSize({ width: 390, height: 844 });
    await screenshot(alice, "chat-run-cancelled-stubbed-phone");
    await alice.context().close();
  });

  it("a run waiting for its turn says how many runs are ahead, then runs", async () => {
    // One run at a time, so alice's second conversation waits for her first.
    const own = await startServer({ HARBOR_MAX_ACTIVE_RUNS: "1", HARBOR_STEP_MS: "400", HARBOR_STREAM_CHUNK_MS: "15" }, "e2e-queue");
    try {
      const context = await browser.newContext();
      const first = await context.newPage();
      await signInAs(first, own.url, "alice@acme.test");
      await say(first, "count slowly to 8");
      await expect.poll(() => first.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThanOrEqual(1);

      const second = await context.newPage();
      await second.goto(`${own.url}/chat`);
      await say(second, "count slowly to 2");
      const queued = second.getByTestId("run-queued");
      await expect.poll(async () => (await queued.allTextContents()).join(" / "), PATIENCE).toBe("Queued — 1 ahead");
      expect(await second.getByText("The concierge is working…").count()).toBe(0);
      await screenshot(second, "chat-run-queued");

      // Its turn comes: the place gives way to the run's own messages.
      await expect.poll(() => second.getByTestId("messages").textContent(), PATIENCE).toContain("Done counting to 2.");
      expect(await queued.count()).toBe(0);
      await context.close();
    } finally {
      await own.stop();
      fs.rmSync(own.dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
