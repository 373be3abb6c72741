/**
 * The chat never loses the thread: a conversation gets its address the moment its first run
 * starts; opening a conversation whose run is still going (a reload, a second tab, clicking back
 * into it) attaches to the run — its text keeps growing and Stop is offered; a server that drops
 * mid-reply leaves the page with an offline banner and the partial answer, and the page catches up
 * from the run's log once the server is back.
 */
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { screenshot, signInAs, useBrowser, say } from "../helpers/browser";
import { startServer, freePort, type RunningServer } from "../helpers/server";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };
/** A run that starts at once counts a number every HARBOR_STEP_MS (500 ms): the URL comes well before it ends. */
const SOON = { timeout: 8_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844, isMobile: true, hasTouch: true } } as const;

/** The numbers the counting run said so far, as shown. */
async function numbersShown(page: Page): Promise<number[]> {
  const texts = await page.getByTestId("message-assistant").allTextContents();
  return texts.flatMap((t) => {
    const match = /(\d+)\s*$/.exec(t.trim());
    return match && /^(Concierge)?\s*\d+$/.test(t.trim()) ? [Number(match[1])] : [];
  });
}

/** The run shows live: Stop is offered, and the last number said keeps growing. */
async function expectLive(page: Page): Promise<void> {
  await page.getByTestId("stop-run").waitFor({ state: "visible", timeout: PATIENCE.timeout });
  await expect.poll(async () => (await numbersShown(page)).length, PATIENCE).toBeGreaterThan(0);
  const before = Math.max(...(await numbersShown(page)));
  await expect.poll(async () => Math.max(0, ...(await numbersShown(page))), PATIENCE).toBeGreaterThan(before);
}

async function stopRun(page: Page): Promise<void> {
  await page.getByTestId("stop-run").click();
  await expect.poll(() => page.getByTestId("stop-run").count(), PATIENCE).toBe(0);
}

describe("a conversation whose run is still going, in Chromium", () => {
  const browser = useBrowser();

  for (const [size, viewport] of Object.entries(SIZES)) {
    it(`gets its address at once, and a reload mid-reply attaches to the run (${size})`, async () => {
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, ...viewport });
      const page = await context.newPage();
      await signInAs(page, server.url, "alice@acme.test");
      await say(page, `count slowly to 60 (${size} reload)`);
      await expect.poll(() => page.url(), SOON).toMatch(/\/chat\/[0-9a-f-]{36}$/);
      const address = page.url();
      await expect.poll(async () => (await numbersShown(page)).length, PATIENCE).toBeGreaterThan(1);
      if (size === "desktop") {
        await expect.poll(() => page.getByTestId("thread-list").textContent(), SOON).toContain(`count slowly to 60 (${size} reload)`);
      }
      await page.reload();
      expect(page.url()).toBe(address);
      await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain(`count slowly to 60 (${size} reload)`);
      await expectLive(page);
      await screenshot(page, `chat-live-reloaded-${size}`);
      await stopRun(page);
      await context.close();
    });
  }

  it("shows the live run in a second tab, and again after clicking away and back", async () => {
    const context = await browser.newContext({ viewport: SIZES.desktop });
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    await say(page, "count slowly to 60 (two tabs)");
    await expect.poll(() => page.url(), SOON).toMatch(/\/chat\/[0-9a-f-]{36}$/);
    const address = page.url();

    const second = await context.newPage();
    await second.goto(address);
    await expectLive(second);
    await screenshot(second, "chat-live-second-tab");
    await second.close();

    await page.getByTestId("new-thread").click();
    await page.waitForURL(/\/chat$/);
    await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the concierge help?");
    await page.getByTestId("thread-list").getByText("count slowly to 60 (two tabs)").first().click();
    await page.waitForURL(address);
    await expectLive(page);
    await stopRun(page);
    // Once stopped, nothing is left streaming, and the run's numbers are each shown once.
    const numbers = await numbersShown(page);
    expect(new Set(numbers).size).toBe(numbers.length);
    await context.close();
  });
});

describe("a server that drops mid-reply, in Chromium", () => {
  const browser = useBrowser();

  for (const [size, viewport] of Object.entries(SIZES)) {
    it(`keeps the page and the partial answer, says it is offline, and catches up when the server is back (${size})`, async () => {
      const port = await freePort();
      const env = { PORT: String(port), HARBOR_STREAM_CHUNK_MS: "15", HARBOR_STEP_MS: "300" };
      const first = await startServer(env, `e2e-chat-drop-${size}`);
      let second: RunningServer | undefined;
      try {
        const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, ...viewport });
        const page = await context.newPage();
        await signInAs(page, first.url, "alice@acme.test");
        await say(page, "count slowly to 25");
        await expect.poll(async () => (await numbersShown(page)).length, PATIENCE).toBeGreaterThan(2);
        await first.stop();
        const banner = page.getByTestId("offline-banner");
        await expect.poll(() => banner.textContent(), PATIENCE).toMatch(/offline|reconnect/i);
        expect(await banner.getAttribute("role")).toMatch(/status|alert/);
        // Still the app's page, with what had arrived.
        expect(page.url()).toMatch(new RegExp(`^${first.url}/chat`));
        const kept = await numbersShown(page);
        expect(kept.length).toBeGreaterThan(2);
        await screenshot(page, `chat-live-offline-${size}`);

        second = await startServer({ ...env, HARBOR_DATA_DIR: first.dataDir }, `e2e-chat-drop-${size}-restarted`);
        await expect.poll(() => banner.count(), { timeout: 30_000 }).toBe(0);
        // The run died with the server that ran it: the restarted one reclaims it as failed, and the
        // page catches up to that end from the log — every number once, in order, none lost.
        await expect.poll(() => page.getByTestId("stop-run").count(), { timeout: 45_000 }).toBe(0);
        const numbers = await numbersShown(page);
        expect(numbers.length).toBeGreaterThanOrEqual(kept.length);
        expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
        // It says how the run ended — it failed with its server, which the restarted one found at its
        // start, before the page asked again — and offers Retry.
        const failure = page.getByTestId("run-error");
        await expect.poll(() => failure.getAttribute("data-code"), PATIENCE).toBe("INSTANCE_LOST");
        expect(await failure.textContent()).toContain("stopped before the run ended");
        const retry = failure.getByRole("button", { name: "Retry" });
        await retry.waitFor(PATIENCE);
        // Said once: the thread's note of the same ending waits behind the failure shown.
        expect(await page.getByTestId("system-note").count()).toBe(0);
        await screenshot(page, `chat-live-caught-up-${size}`);
        // Retry counts on from where the run was cut, to its end.
        await retry.click();
        await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("Done counting to 25.");
        expect(await numbersShown(page)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        expect(await failure.count()).toBe(0);
        expect(await page.getByTestId("system-note").textContent()).toContain("stopped before the run ended");
        await screenshot(page, `chat-live-retried-${size}`);
        await context.close();
      } finally {
        await first.stop();
        await second?.stop();
      }
    }, 240_000);
  }
});

describe("a rejection followed live, in Chromium", () => {
  const browser = useBrowser();

  /**
   * The requester's page follows the run an approver continues, and refreshes the thread's
   * requests when the decision is announced. When the run's reply came before that refresh (one
   * try in three on a loaded machine), the page followed the run a second time and showed its
   * reply twice. Here the refresh is held back on purpose, every time.
   */
  it("shows the reply to a rejected transfer once, however late the requests refresh", async () => {
    const alice = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    for (let attempt = 1; attempt <= 3; attempt++) {
      const account = `ACME-REJ-${attempt}-${Date.now()}`;
      await alice.getByTestId("new-thread").click();
      await alice.waitForURL(/\/chat$/);
      await say(alice, `transfer 480 EUR to ${account}`);
      await expect
        .poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE)
        .toBe("pending")
        .catch(async (error: unknown) => {
          await screenshot(alice, `chat-live-rejected-setup-failed-${attempt}`);
          throw error;
        });

      const listed = await bob.request.get(`${server.url}/api/trpc/interactions.list?input=${encodeURIComponent('{"status":"pending"}')}`);
      const pending = ((await listed.json()) as { result: { data: { interactionId: string; message: string | null }[] } }).result.data;
      const request = pending.find((p) => p.message?.includes(account));
      expect(request).toBeDefined();

      // The thread's requests answer late from now on: the run's reply arrives first.
      await alice.route("**/api/trpc/interactions.list**", async (route) => {
        await new Promise((r) => setTimeout(r, 2_500));
        await route.continue();
      });
      await bob.request.post(`${server.url}/api/trpc/interactions.reject`, {
        data: { interactionId: request!.interactionId, reason: "not this month" },
      });
      const reply = `I did not make the transfer of`;
      await expect.poll(() => alice.getByTestId("messages").textContent(), PATIENCE).toContain(reply);
      await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("rejected");
      // The card turns rejected only once the held-back refresh came: a second follow, if any, has replayed the run by then.
      const replies = (await alice.getByTestId("message-assistant").allTextContents()).filter((t) => t.includes(reply));
      expect(replies, `attempt ${attempt}`).toHaveLength(1);
      await alice.unrouteAll({ behavior: "wait" });
    }
    await screenshot(alice, "chat-live-rejected-once");
    await alice.context().close();
    await bob.context().close();
  }, 120_000);
});

describe("first token, in Chromium", () => {
  const browser = useBrowser();

  it("shows the first words of a reply soon after Enter (desktop, median of 5)", async () => {
    const page = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await signInAs(page, server.url, "alice@acme.test");
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.getByTestId("new-thread").click();
      await page.waitForURL(/\/chat$/);
      await page.getByText("How can the concierge help?").waitFor();
      const box = page.getByLabel("Message");
      await box.fill(`hello, first token ${i}`);
      // Measured in the page: from the Enter key to the first assistant text painted.
      const elapsed = page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            let start = 0;
            const seen = () => {
              const text = document.querySelector('[data-testid="message-assistant"] .message-body')?.textContent ?? "";
              if (text.trim()) resolve(performance.now() - start);
              else requestAnimationFrame(seen);
            };
            document.addEventListener(
              "keydown",
              (event) => {
                if (event.key !== "Enter") return;
                start = performance.now();
                requestAnimationFrame(seen);
              },
              { capture: true, once: true },
            );
          }),
      );
      await box.press("Enter");
      times.push(await elapsed);
      await expect.poll(() => page.getByTestId("stop-run").count(), PATIENCE).toBe(0);
    }
    const median = [...times].sort((a, b) => a - b)[2]!;
    console.info(`first token (desktop, pglite): ${times.map((t) => Math.round(t)).join(", ")} ms; median ${Math.round(median)} ms`);
    expect(median).toBeLessThan(5_000);
    await page.context().close();
  });
});
