import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { expectAccessible } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { startServer } from "../helpers/server";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };

describe("approval journeys in Chromium", () => {
  const browser = useBrowser();

  it("alice asks to send an email and approves it in the chat", async () => {
    const page = await (await browser.newContext()).newPage();
    await signInAs(page, server.url, "alice@acme.test");
    await say(page, "send an email to bob@example.com saying the deck is ready");

    const card = page.getByTestId("approval-card");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
    expect(await card.textContent()).toContain("bob@example.com");
    expect(await card.textContent()).toContain("the deck is ready");
    expect(await card.textContent()).toMatch(/Your approval is needed · expires in 1[45]:\d\d/);
    // New messages wait until the request is answered.
    expect(await page.getByLabel("Message").isDisabled()).toBe(true);
    expect(await page.getByLabel("Message").getAttribute("placeholder")).toBe("Answer the request above first");
    await screenshot(page, "chat-approval-pending");

    await card.getByLabel("Reason (optional)").fill("looks right");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Email sent to bob@example.com.");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await expect.poll(() => card.textContent(), PATIENCE).toContain("Approved by you · Email sent");
    await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
    await screenshot(page, "chat-approval-approved");

    // A reload shows the same, from the server's record.
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await page.reload();
    await expect.poll(() => page.getByTestId("approval-card").textContent(), PATIENCE).toContain("Approved by you · Email sent");
    await page.context().close();
  });

  it("alice asks for a transfer, bob approves it in /approvals, and alice's chat shows the result", async () => {
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, "transfer 480 EUR to ACME-99");
    const card = alice.getByTestId("approval-card");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
    await expect.poll(() => card.textContent(), PATIENCE).toContain("You cannot approve your own request");
    expect(await card.getByRole("button", { name: "Approve" }).count()).toBe(0);
    expect(await alice.getByLabel("Message").getAttribute("placeholder")).toBe("Waiting for an approver to decide…");
    await screenshot(alice, "chat-transfer-waiting");

    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.getByRole("link", { name: "Approvals" }).click();
    await bob.waitForURL(/\/approvals$/);
    const row = bob.getByTestId("inbox-row").filter({ hasText: "Transfer 480 EUR to ACME-99" });
    await expect.poll(() => row.count(), PATIENCE).toBe(1);
    await row.click();
    const detail = bob.getByTestId("inbox-detail");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain("Alice");
    await screenshot(bob, "approvals-pending");
    await detail.getByLabel("Reason (optional)").fill("within budget");
    await detail.getByRole("button", { name: "Approve" }).click();

    // Alice did nothing: her chat follows the run bob continued.
    await expect
      .poll(() => alice.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Transferred 480 EUR to ACME-99.");
    await expect.poll(() => card.textContent(), PATIENCE).toMatch(/Approved by Bob.* · Transfer made/);
    await screenshot(alice, "chat-transfer-approved");

    await bob.getByRole("tab", { name: "Decided" }).click();
    const receipt = bob.getByTestId("inbox-row").filter({ hasText: "Transfer 480 EUR to ACME-99" });
    await expect.poll(() => receipt.count(), PATIENCE).toBe(1);
    await receipt.click();
    await expect.poll(() => bob.getByTestId("receipt").textContent(), PATIENCE).toMatch(/Approved by you on .* — “within budget”/);
    await screenshot(bob, "approvals-decided");
    await alice.context().close();
    await bob.context().close();
  });

  it("lets a member follow her own requests in /approvals — only hers, waiting on others — and withdraw one there; admins decide", async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await say(bob, `transfer 21 EUR to BOBS-${tag}`);
    await bob.locator('[data-testid="approval-card"][data-status="pending"]').waitFor(PATIENCE);

    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, `transfer 15 EUR to MINE-${tag}`);
    await alice.locator('[data-testid="approval-card"][data-status="pending"]').waitFor(PATIENCE);
    await alice.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    const threadPath = new URL(alice.url()).pathname;

    await alice.getByRole("link", { name: "Approvals" }).click();
    await alice.waitForURL(/\/approvals$/);
    const waiting = alice.getByTestId("inbox-group-waiting");
    const mine = waiting.getByTestId("inbox-row").filter({ hasText: `MINE-${tag}` });
    await expect.poll(() => mine.count(), PATIENCE).toBe(1);
    // Nothing is hers to decide, so there is no "Needs me"; bob's request is not hers to see at all.
    expect(await alice.getByTestId("inbox-group-needs-me").count()).toBe(0);
    expect(
      await alice
        .getByTestId("inbox-row")
        .filter({ hasText: `BOBS-${tag}` })
        .count(),
    ).toBe(0);
    // Her inbox has only her own requests: there is nobody to filter by.
    await alice.getByTestId("filters-toggle").click();
    await alice.getByLabel("Filter by tool").waitFor(PATIENCE);
    expect(await alice.getByLabel("Filter by requester").count()).toBe(0);
    await alice.getByTestId("filters-toggle").click();

    await mine.click();
    const detail = alice.getByTestId("inbox-detail");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain("another approver must decide");
    expect(await detail.getByRole("button", { name: "Approve" }).count()).toBe(0);
    await expectAccessible(alice, "a member's own request in the inbox");
    await screenshot(alice, "approvals-member");
    await detail.getByRole("button", { name: "Withdraw request" }).click();
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("cancelled");
    await expect.poll(() => alice.getByTestId("receipt").textContent(), PATIENCE).toMatch(/^Withdrawn by you on .+/);
    await expect.poll(() => alice.getByTestId("toast").first().textContent(), PATIENCE).toContain("Request withdrawn");
    await screenshot(alice, "approvals-member-withdrawn");

    // Nothing was transferred; her conversation shows the request withdrawn and takes new messages.
    const outbox = await alice.request.get(`${server.url}/api/trpc/outbox.list`);
    const rows = ((await outbox.json()) as { result: { data: { details: { to?: string } }[] } }).result.data;
    expect(rows.filter((r) => r.details.to === `MINE-${tag}`)).toEqual([]);
    await alice.goto(`${server.url}${threadPath}`);
    await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("cancelled");
    await expect.poll(() => alice.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);

    // Bob's request is still there for the others: carol (admin) sees it under Needs me, and rejects it.
    const carol = await (await browser.newContext()).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    await carol.goto(`${server.url}/approvals`);
    const bobs = carol
      .getByTestId("inbox-group-needs-me")
      .getByTestId("inbox-row")
      .filter({ hasText: `BOBS-${tag}` });
    await expect.poll(() => bobs.count(), PATIENCE).toBe(1);
    await bobs.click();
    await carol.getByTestId("inbox-detail").getByRole("button", { name: "Reject" }).click();
    await expect.poll(() => carol.getByTestId("inbox-detail").getAttribute("data-status"), PATIENCE).toBe("rejected");
    for (const p of [alice, bob, carol]) await p.context().close();
  });

  it("lets the requester withdraw a transfer waiting on an approver from her chat", async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, `transfer 16 EUR to CHATWD-${tag}`);
    const card = alice.getByTestId("approval-card");
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
    await card.getByRole("button", { name: "Withdraw request" }).click();
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("cancelled");
    await expect.poll(() => alice.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
    await alice.context().close();
  });

  it("tells alice her approval was lost when Harbor restarted, and Retry asks again", async () => {
    const first = await startServer({ HARBOR_STREAM_CHUNK_MS: "15" }, "e2e-restart");
    let second: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signInAs(page, first.url, "alice@acme.test");
      await say(page, "send an email to later@example.com saying hello");
      await expect.poll(() => page.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
      await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
      const threadPath = new URL(page.url()).pathname;
      await first.stop();

      second = await startServer({ HARBOR_DATA_DIR: first.dataDir, HARBOR_STREAM_CHUNK_MS: "15" }, "e2e-restarted");
      // Cookies are per host, not per port, and the session secret lives in the data folder: alice
      // is still signed in on the restarted server.
      await page.goto(`${second.url}${threadPath}`);
      const card = page.getByTestId("approval-card");
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("lost");
      await expect.poll(() => card.textContent(), PATIENCE).toContain("Lost when Harbor restarted");
      // The card offers Retry: it asks again, with a fresh request and without sending the message twice.
      const retry = card.getByRole("button", { name: "Retry" });
      await retry.waitFor(PATIENCE);
      await screenshot(page, "chat-approval-lost");
      await retry.click();
      await expect.poll(() => page.getByTestId("approval-card").count(), PATIENCE).toBe(2);
      await expect.poll(() => page.getByTestId("approval-card").last().getAttribute("data-status"), PATIENCE).toBe("pending");
      expect(await page.getByTestId("message-user").count()).toBe(1);
      await screenshot(page, "chat-approval-lost-asked-again");
      await context.close();
    } finally {
      await first.stop();
      await second?.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      if (second) fs.rmSync(second.dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
