import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } as const;
const DESKTOP = { viewport: { width: 1280, height: 800 } } as const;

interface Gate {
  interactionId: string;
  runId: string;
  status: string;
  message: string | null;
}

async function gateFor(page: Page, account: string): Promise<Gate> {
  const input = encodeURIComponent(JSON.stringify({ kind: "approval" }));
  const body = (await (await page.request.get(`${server.url}/api/trpc/interactions.list?input=${input}`)).json()) as {
    result: { data: Gate[] };
  };
  const gate = body.result.data.find((g) => g.message?.endsWith(` to ${account}`));
  if (!gate) throw new Error(`no request for ${account}`);
  return gate;
}

/** Alice asks for a transfer in a conversation of its own. */
async function aliceAsks(alice: Page, text: string): Promise<void> {
  if (!alice.url().endsWith("/chat")) {
    await alice.getByTestId("new-thread").click();
    await alice.waitForURL(/\/chat$/);
  }
  await say(alice, text);
  await expect.poll(() => alice.getByTestId("approval-card").last().getAttribute("data-status"), PATIENCE).toBe("pending");
  await alice.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
}

/** Bob rejects what is left of these requests, so the tenant's inbox stays as it was. */
async function rejectAll(bob: Page, ids: string[]): Promise<void> {
  for (const interactionId of ids) await bob.request.post(`${server.url}/api/trpc/interactions.reject`, { data: { interactionId } });
}

describe("the inbox as a triage queue", () => {
  const browser = useBrowser();

  it("on a phone, each request has its URL and Back returns to the list (not to the chat)", async () => {
    const tag = randomUUID().slice(0, 6).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await aliceAsks(alice, `transfer 12 EUR to PH-${tag}`);
    const gate = await gateFor(alice, `PH-${tag}`);

    const bob = await (await browser.newContext(PHONE)).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    const row = bob.getByTestId("inbox-row").filter({ hasText: `PH-${tag}` });
    await expect.poll(() => row.count(), PATIENCE).toBe(1);
    await row.tap();
    const detail = bob.getByTestId("inbox-detail");
    await expect.poll(() => detail.isVisible(), PATIENCE).toBe(true);
    await expect.poll(() => new URL(bob.url()).pathname, PATIENCE).toBe(`/approvals/${gate.interactionId}`);
    await screenshot(bob, "inbox-triage-phone-detail");

    await bob.goBack();
    await expect.poll(() => new URL(bob.url()).pathname, PATIENCE).toBe("/approvals");
    await expect.poll(() => row.isVisible(), PATIENCE).toBe(true);
    expect(await detail.isVisible()).toBe(false);

    // The request's URL opens it directly (a deep link), and its Back button shows the list.
    await bob.goto(`${server.url}/approvals/${gate.interactionId}`);
    await expect.poll(() => detail.isVisible(), PATIENCE).toBe(true);
    expect(await detail.textContent()).toContain(`PH-${tag}`);
    await bob.getByRole("button", { name: "Back to requests" }).tap();
    await expect.poll(() => row.isVisible(), PATIENCE).toBe(true);
    expect(new URL(bob.url()).pathname).toBe("/approvals");

    // The address of a request that does not exist (any more) says so, and offers no decision.
    await bob.goto(`${server.url}/approvals/${randomUUID()}`);
    await expect.poll(() => bob.getByTestId("gone-detail").isVisible(), PATIENCE).toBe(true);
    expect(await bob.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0);
    await screenshot(bob, "inbox-triage-phone-gone");

    // A run's detail in the console: Back returns to the runs.
    const carol = await (await browser.newContext(PHONE)).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    await carol.goto(`${server.url}/console`);
    const run = carol.locator(`[data-testid="run-row"][data-run-id="${gate.runId}"]`);
    await expect.poll(() => run.count(), PATIENCE).toBe(1);
    await run.locator("button").first().tap();
    await expect.poll(() => carol.getByTestId("run-detail").isVisible(), PATIENCE).toBe(true);
    await expect.poll(() => new URL(carol.url()).pathname, PATIENCE).toBe(`/console/runs/${gate.runId}`);
    await carol.goBack();
    await expect.poll(() => new URL(carol.url()).pathname, PATIENCE).toBe("/console");
    await expect.poll(() => run.isVisible(), PATIENCE).toBe(true);

    await rejectAll(bob, [gate.interactionId]);
    await alice.context().close();
    await bob.context().close();
    await carol.context().close();
  }, 90_000);

  it("advances to the next request after a decision, shows amount and deadline, and counts what waits in the navigation", async () => {
    const tag = randomUUID().slice(0, 6).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    const bob = await (await browser.newContext(DESKTOP)).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    const badge = bob.getByTestId("nav-pending-count");
    const count = async () => ((await badge.count()) ? Number.parseInt((await badge.first().textContent()) ?? "0", 10) : 0);
    await expect.poll(() => bob.getByTitle("Updates arrive as they happen").textContent(), PATIENCE).toBe("Live");
    const before = await count();

    await aliceAsks(alice, `transfer 30 EUR to AA-${tag}`);
    await aliceAsks(alice, `transfer 40 EUR to BB-${tag}`);
    // The navigation counts them as they arrive.
    await expect.poll(count, PATIENCE).toBe(before + 2);
    const first = await gateFor(bob, `BB-${tag}`);
    const second = await gateFor(bob, `AA-${tag}`);

    const rowA = bob.getByTestId("inbox-row").filter({ hasText: `AA-${tag}` });
    const rowB = bob.getByTestId("inbox-row").filter({ hasText: `BB-${tag}` });
    await expect.poll(() => rowB.count(), PATIENCE).toBe(1);
    // Rows show the amount and the deadline.
    expect(await rowB.textContent()).toContain("40 EUR");
    expect(await rowB.getByTestId("row-expires").textContent()).toMatch(/\d/);
    await rowB.click();
    await expect.poll(() => new URL(bob.url()).pathname, PATIENCE).toBe(`/approvals/${first.interactionId}`);
    const boxA = await rowA.boundingBox();

    // A double click on Approve decides this one only, and the next one comes up.
    const detail = bob.getByTestId("inbox-detail");
    const approve = detail.getByRole("button", { name: "Approve", exact: true });
    const box = (await approve.boundingBox())!;
    await bob.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => new URL(bob.url()).pathname, PATIENCE).not.toBe(`/approvals/${first.interactionId}`);
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("pending");
    await expect.poll(() => rowB.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await bob.waitForTimeout(1_500);
    expect((await gateFor(bob, `BB-${tag}`)).status).toBe("resolved");
    expect((await gateFor(bob, `AA-${tag}`)).status).toBe("pending");
    // The decided row stayed where it was: nothing moved under the pointer.
    expect(await rowA.boundingBox()).toEqual(boxA);
    await expect.poll(count, PATIENCE).toBe(before + 1);
    await screenshot(bob, "inbox-triage-advanced-desktop");
    // The decision's toast hides neither the navigation's count nor the next request's title (its words).
    const toast = (await bob.getByTestId("toast").first().boundingBox())!;
    const title = await detail
      .locator("h2")
      .first()
      .evaluate((h) => {
        const range = document.createRange();
        range.selectNodeContents(h);
        const { x, y, width, height } = range.getBoundingClientRect();
        return { x, y, width, height };
      });
    for (const [what, b] of [
      ["count", (await badge.first().boundingBox())!],
      ["title", title],
    ] as const) {
      const apart = toast.x >= b.x + b.width || b.x >= toast.x + toast.width || toast.y >= b.y + b.height || b.y >= toast.y + toast.height;
      expect(apart, `the toast covers the ${what}`).toBe(true);
    }

    await rejectAll(bob, [second.interactionId]);
    await expect.poll(count, PATIENCE).toBe(before);
    await alice.context().close();
    await bob.context().close();
  }, 120_000);
});
