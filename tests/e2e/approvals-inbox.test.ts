import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };

interface Interaction {
  interactionId: string;
  status: string;
  message: string | null;
  resolvedBy: { id: string; name: string | null } | null;
}
interface OutboxRow {
  kind: string;
  details: { to?: string; amount?: number };
}

/** A tRPC query with the page's own session, as the UI sends it. */
async function query<T>(page: Page, path: string, input?: unknown): Promise<T> {
  const search = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await page.request.get(`${server.url}/api/trpc/${path}${search}`);
  const body = (await response.json()) as { result?: { data: T }; error?: { message: string } };
  if (!body.result) throw new Error(`${path}: ${body.error?.message ?? response.status()}`);
  return body.result.data;
}

/** Alice asks for two transfers, each in its own conversation: a small one, then a large one (listed first, newest first). */
async function twoTransfers(alice: Page, tag: string): Promise<{ small: string; large: string }> {
  const small = `SMALL-${tag}`;
  const large = `LARGE-${tag}`;
  await say(alice, `transfer 10 EUR to ${small}`);
  await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
  await alice.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  await alice.getByTestId("new-thread").click();
  await alice.waitForURL(/\/chat$/);
  await say(alice, `transfer 9999 EUR to ${large}`);
  await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
  return { small, large };
}

/** Bob's pending requests for these two transfers, by account. */
async function gates(bob: Page, small: string, large: string): Promise<{ small: Interaction; large: Interaction }> {
  const all = await query<Interaction[]>(bob, "interactions.list", { kind: "approval" });
  const find = (account: string) => {
    const found = all.find((i) => i.message?.endsWith(` to ${account}`));
    if (!found) throw new Error(`no request for ${account}`);
    return found;
  };
  return { small: find(small), large: find(large) };
}

describe("the approvals inbox decides exactly the request on screen", () => {
  const browser = useBrowser();

  it.each([
    ["two clicks 600 ms apart", "twice" as const],
    ["a double click", "dblclick" as const],
  ])("bob approves the 10 EUR transfer with %s: only that one is decided, and it stays selected with its receipt", async (_, how) => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    const { small, large } = await twoTransfers(alice, tag);

    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    const smallRow = bob.getByTestId("inbox-row").filter({ hasText: `Transfer 10 EUR to ${small}` });
    const largeRow = bob.getByTestId("inbox-row").filter({ hasText: `Transfer 9,999 EUR to ${large}` });
    await expect.poll(() => smallRow.count(), PATIENCE).toBe(1);
    await expect.poll(() => largeRow.count(), PATIENCE).toBe(1);
    await smallRow.click();
    const detail = bob.getByTestId("inbox-detail");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain(small);

    // The pointer stays where the Approve button was, and clicks there again.
    const approve = detail.getByRole("button", { name: "Approve" });
    const box = await approve.boundingBox();
    if (!box) throw new Error("the Approve button is not on screen");
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    if (how === "twice") {
      await bob.mouse.click(x, y);
      await bob.waitForTimeout(600);
      await bob.mouse.click(x, y);
    } else {
      await bob.mouse.dblclick(x, y);
    }
    // Long enough for a second decision to land, were one sent.
    await bob.waitForTimeout(1_500);

    // The inbox moved on to the next request, which the second click did not decide; the decided
    // row stayed in its place, with its new status.
    await expect.poll(() => smallRow.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await expect.poll(() => smallRow.getAttribute("aria-current"), PATIENCE).toBe("false");
    expect(await detail.getAttribute("data-status")).toBe("pending");
    expect(await detail.textContent()).not.toContain(small);
    await expect.poll(() => bob.getByTestId("toast").first().textContent(), PATIENCE).toContain(`Transfer 10 EUR to ${small}`);
    expect(await bob.getByTestId("toast").first().textContent()).toContain("Approved");
    await screenshot(bob, `approvals-after-${how}`);
    // Its receipt: who decided, when and how.
    await smallRow.click();
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await expect.poll(() => bob.getByTestId("receipt").textContent(), PATIENCE).toMatch(/^Approved by you on .+/);

    // Exactly one request was decided: the small one; the large one still waits.
    const decided = await gates(bob, small, large);
    expect(decided.small.status).toBe("resolved");
    expect(decided.small.resolvedBy?.name).toBe("Bob");
    expect(decided.large.status).toBe("pending");
    expect(await largeRow.getAttribute("data-status")).toBe("pending");
    await expect
      .poll(async () => (await query<OutboxRow[]>(alice, "outbox.list")).filter((r) => r.details.to === small).length, PATIENCE)
      .toBe(1);
    expect((await query<OutboxRow[]>(alice, "outbox.list")).filter((r) => r.details.to === large)).toEqual([]);

    // Leave the tenant's inbox as it was: the large transfer is rejected on purpose.
    await largeRow.click();
    await expect.poll(() => detail.textContent(), PATIENCE).toContain(large);
    await detail.getByRole("button", { name: "Reject" }).click();
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("rejected");
    await alice.context().close();
    await bob.context().close();
  });

  it("shows the inbox on a phone-sized screen", async () => {
    const bob = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    await expect.poll(() => bob.getByRole("tab", { name: /Pending/ }).count(), PATIENCE).toBe(1);
    await bob.getByRole("tab", { name: "Decided" }).click();
    await expect.poll(() => bob.getByTestId("inbox-row").count(), PATIENCE).toBeGreaterThan(0);
    // Nothing wider than the screen.
    expect(await bob.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(bob, "approvals-phone");
    await bob.context().close();
  });
});
