import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, signInAs, useBrowser } from "../helpers/browser";
import { startServer } from "../helpers/server";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };
const SHOTS = process.env.OPS_SHOTS_DIR ?? "/tmp/opsui-shots";
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** Asks for a transfer in a new conversation and waits until its approval card is pending. */
async function askTransfer(page: Page, text: string): Promise<void> {
  await page.goto(`${page.url().split("/chat")[0]}/chat`);
  await say(page, text);
  await page.locator('[data-testid="approval-card"][data-status="pending"]').last().waitFor(PATIENCE);
}

/** Rejects every pending request whose message mentions `tag` (leaves the shared tenant's inbox as it was). */
async function rejectAll(page: Page, baseUrl: string, tag: string): Promise<void> {
  const listed = await page.request.get(`${baseUrl}/api/trpc/interactions.list?input=${encodeURIComponent('{"status":"pending"}')}`);
  const pending = ((await listed.json()) as { result: { data: { interactionId: string; message: string | null }[] } }).result.data;
  for (const i of pending.filter((p) => p.message?.includes(tag)))
    await page.request.post(`${baseUrl}/api/trpc/interactions.reject`, { data: { interactionId: i.interactionId } });
}

const row = (scope: Pick<Page, "getByTestId"> | Locator, text: string) => scope.getByTestId("inbox-row").filter({ hasText: text });

describe("the approvals inbox: whose move, the conversation, keys, large transfers, lost and expired", () => {
  const browser = useBrowser();

  it("sorts requests into Needs me and Waiting on others, and shows the conversation only to owners and admins", async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await askTransfer(alice, `transfer 10 EUR to ALICE-${tag}`);
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await askTransfer(bob, `transfer 20 EUR to BOB-${tag}`);

    await bob.goto(`${server.url}/approvals`);
    const needsMe = bob.getByTestId("inbox-group-needs-me");
    const waiting = bob.getByTestId("inbox-group-waiting");
    await expect.poll(() => row(needsMe, `ALICE-${tag}`).count(), PATIENCE).toBe(1);
    await expect.poll(() => row(waiting, `BOB-${tag}`).count(), PATIENCE).toBe(1);
    expect(await row(needsMe, `BOB-${tag}`).count()).toBe(0);

    // Bob is an approver, not alice's admin: he sees the request, never her conversation.
    await row(bob, `ALICE-${tag}`).click();
    const detail = bob.getByTestId("inbox-detail");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain(`ALICE-${tag}`);
    await bob.getByTestId("conversation-private").waitFor(PATIENCE);
    expect(await bob.getByTestId("conversation").count()).toBe(0);
    // His own request waits on another approver (four-eyes): he cannot decide it.
    await row(bob, `BOB-${tag}`).click();
    await expect.poll(() => detail.textContent(), PATIENCE).toContain("another approver must decide");
    // ...but he may read his own conversation.
    await expect.poll(() => bob.getByTestId("conversation").textContent(), PATIENCE).toContain(`BOB-${tag}`);

    // Carol (admin) has both to decide, and may read alice's conversation.
    const carol = await (await browser.newContext()).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    await carol.goto(`${server.url}/approvals`);
    const carolNeeds = carol.getByTestId("inbox-group-needs-me");
    await expect.poll(() => row(carolNeeds, `ALICE-${tag}`).count(), PATIENCE).toBe(1);
    await expect.poll(() => row(carolNeeds, `BOB-${tag}`).count(), PATIENCE).toBe(1);
    await row(carol, `ALICE-${tag}`).click();
    await expect.poll(() => carol.getByTestId("conversation").textContent(), PATIENCE).toContain(`transfer 10 EUR to ALICE-${tag}`);

    await rejectAll(carol, server.url, tag);
    for (const p of [alice, bob, carol]) await p.context().close();
  });

  it("moves with j/k, decides with a and a confirmation, and never fires while typing", async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await askTransfer(alice, `transfer 11 EUR to KEY1-${tag}`);
    await askTransfer(alice, `transfer 12 EUR to KEY2-${tag}`);
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    const first = row(bob, `KEY1-${tag}`);
    const second = row(bob, `KEY2-${tag}`);
    await expect.poll(() => first.count(), PATIENCE).toBe(1);
    await expect.poll(() => second.count(), PATIENCE).toBe(1);

    // Newest first: KEY2 is above KEY1. From KEY2, j moves down to KEY1 and k back up.
    await second.click();
    await expect.poll(() => second.getAttribute("aria-current"), PATIENCE).toBe("true");
    await bob.keyboard.press("j");
    await expect.poll(() => first.getAttribute("aria-current"), PATIENCE).toBe("true");
    await bob.keyboard.press("k");
    await expect.poll(() => second.getAttribute("aria-current"), PATIENCE).toBe("true");
    await bob.keyboard.press("j");
    await expect.poll(() => first.getAttribute("aria-current"), PATIENCE).toBe("true");
    const detail = bob.getByTestId("inbox-detail");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain(`KEY1-${tag}`);

    // Typing "a" or "j" in the reason field is typing, not a shortcut.
    const reason = detail.getByLabel("Reason (optional)");
    await reason.click();
    await reason.pressSequentially("ja ok");
    expect(await bob.getByTestId("decision-confirm").count()).toBe(0);
    expect(await first.getAttribute("aria-current")).toBe("true");
    await reason.evaluate((el) => (el as HTMLElement).blur());

    // The help popover lists the shortcuts.
    await bob.keyboard.press("?");
    await expect.poll(() => bob.getByTestId("shortcuts-help").textContent(), PATIENCE).toContain("Approve the request on screen");
    await bob.keyboard.press("Escape");
    await expect.poll(() => bob.getByTestId("shortcuts-help").count(), PATIENCE).toBe(0);

    // a asks; Escape cancels; a again and Enter approves.
    await bob.keyboard.press("a");
    const confirm = bob.getByTestId("decision-confirm");
    await confirm.waitFor(PATIENCE);
    expect(await confirm.textContent()).toContain(`KEY1-${tag}`);
    await bob.keyboard.press("Escape");
    await expect.poll(() => confirm.count(), PATIENCE).toBe(0);
    expect(await detail.getAttribute("data-status")).toBe("pending");
    await bob.keyboard.press("a");
    await confirm.waitFor(PATIENCE);
    await bob.keyboard.press("Enter");
    // The approved request keeps its place, with its new status, and the inbox moves on.
    await expect.poll(() => first.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await expect.poll(() => first.getAttribute("aria-current"), PATIENCE).toBe("false");
    // The other one was not touched.
    expect(await second.getAttribute("data-status")).toBe("pending");
    await first.click();
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await expect.poll(() => bob.getByTestId("receipt").textContent(), PATIENCE).toMatch(/^Approved by you on .+ — “ja ok”/);

    // r rejects the other one, after its confirmation.
    await bob.keyboard.press("k");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain(`KEY2-${tag}`);
    await bob.keyboard.press("r");
    await confirm.getByRole("button", { name: "Confirm reject" }).click();
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("rejected");
    await alice.context().close();
    await bob.context().close();
  });

  it("asks to type the amount before approving a transfer of 1,000 or more", async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await askTransfer(alice, `transfer 5000 EUR to BIG-${tag}`);
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(`${server.url}/approvals`);
    const big = row(bob, `BIG-${tag}`);
    await expect.poll(() => big.count(), PATIENCE).toBe(1);
    await big.click();
    const detail = bob.getByTestId("inbox-detail");
    await expect.poll(() => detail.textContent(), PATIENCE).toContain(`BIG-${tag}`);
    await detail.getByRole("button", { name: "Approve" }).click();
    const typed = detail.getByLabel("Type the amount or approve to confirm");
    await typed.waitFor(PATIENCE);
    const go = detail.getByRole("button", { name: "Confirm approve" });
    expect(await go.isDisabled()).toBe(true);
    await typed.fill("500");
    expect(await go.isDisabled()).toBe(true);
    // Nothing was sent meanwhile.
    expect(await detail.getAttribute("data-status")).toBe("pending");
    await typed.fill("5,000");
    expect(await go.isDisabled()).toBe(false);
    await go.click();
    await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await alice.context().close();
    await bob.context().close();
  });

  it.each(Object.entries(SIZES))("collects two approvers' votes on a transfer from 10,000 on, at %s size", async (size, viewport) => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const alice = await (await browser.newContext({ viewport })).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await askTransfer(alice, `transfer 12000 EUR to QUORUM-${tag}`);
    const card = alice.locator('[data-testid="approval-card"]').last();
    await expect.poll(() => card.textContent(), PATIENCE).toContain("2 approvers of your organisation must approve (0 so far)");

    /** Opens the request in `who`'s inbox and approves it, typing the amount as a large transfer asks. */
    const approveAs = async (who: Page) => {
      await who.goto(`${server.url}/approvals`);
      const request = row(who, `QUORUM-${tag}`);
      await expect.poll(() => request.count(), PATIENCE).toBe(1);
      await request.click();
      const detail = who.getByTestId("inbox-detail");
      await expect.poll(() => detail.textContent(), PATIENCE).toContain(`QUORUM-${tag}`);
      await detail.getByRole("button", { name: "Approve" }).click();
      await detail.getByLabel("Type the amount or approve to confirm").fill("12,000");
      await detail.getByRole("button", { name: "Confirm approve" }).click();
      // The inbox moves on to the next request that needs them, if any: this one is opened again.
      await expect.poll(() => who.getByTestId("toast").first().textContent(), PATIENCE).toMatch(/Vote recorded|Approved/);
      const back = who.getByRole("button", { name: "Back to requests" });
      if (await back.isVisible()) await back.click();
      await request.click();
      await expect.poll(() => detail.textContent(), PATIENCE).toContain(`QUORUM-${tag}`);
      return detail;
    };

    const bob = await (await browser.newContext({ viewport })).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    const bobs = await approveAs(bob);
    // Bob's approval is a vote: the request stays open, says who voted and who may still.
    await expect.poll(() => bobs.getByTestId("votes").textContent(), PATIENCE).toContain("Approved by you");
    expect(await bobs.getByTestId("votes").textContent()).toContain("May still vote: Carol");
    expect(await bobs.getAttribute("data-status")).toBe("pending");
    await expect.poll(() => bobs.textContent(), PATIENCE).toContain("it waits for 1 more approval");
    await expect.poll(() => row(bob.getByTestId("inbox-group-waiting"), `QUORUM-${tag}`).count(), PATIENCE).toBe(1);
    await expect.poll(() => card.textContent(), PATIENCE).toContain("(1 so far)");
    await expectAccessible(bob, `inbox with a vote (${size})`);
    expect((await horizontalOverflow(bob)).scrollWidth).toBeLessThanOrEqual(viewport.width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await bob.screenshot({ path: path.join(SHOTS, `quorum-vote-${size}.png`), fullPage: true });

    const carol = await (await browser.newContext({ viewport })).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    const carols = await approveAs(carol);
    await expect.poll(() => carols.getAttribute("data-status"), PATIENCE).toBe("resolved");
    expect(await carols.getByTestId("votes").textContent()).toMatch(/Approved by Bob.*Approved by you/s);
    await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("resolved");
    await carol.screenshot({ path: path.join(SHOTS, `quorum-decided-${size}.png`), fullPage: true });
    for (const p of [alice, bob, carol]) await p.context().close();
  });

  it.each(Object.entries(SIZES))(
    "shows a transfer's deadline — escalated to the admins, then expired and kept with a note — at %s size",
    async (size, viewport) => {
      const own = await startServer(
        { HARBOR_APPROVAL_TTL_MS: "16000", HARBOR_SWEEP_MS: "200", HARBOR_STREAM_CHUNK_MS: "0" },
        `e2e-inbox-deadline-${size}`,
      );
      try {
        const alice = await (await browser.newContext({ viewport })).newPage();
        await signInAs(alice, own.url, "alice@acme.test");
        await say(alice, "transfer 42 EUR to EXPIRING");
        await alice.locator('[data-testid="approval-card"][data-status="pending"]').waitFor(PATIENCE);
        // Alice follows her request from her own inbox, where it waits on others.
        await alice.goto(`${own.url}/approvals`);
        const hers = row(alice.getByTestId("inbox-group-waiting"), "EXPIRING");
        await expect.poll(() => hers.getAttribute("data-status"), PATIENCE).toBe("pending");
        const carol = await (await browser.newContext({ viewport })).newPage();
        await signInAs(carol, own.url, "carol@acme.test");
        await carol.goto(`${own.url}/approvals`);
        const expiring = row(carol, "EXPIRING");
        await expect.poll(() => expiring.getAttribute("data-status"), PATIENCE).toBe("pending");
        // Nobody decided in half its time: the admins are asked too, and the list says so.
        await expect.poll(() => expiring.getByTestId("row-deadline").textContent(), PATIENCE).toBe("Escalated to admins");
        await expiring.click();
        const deadline = carol.getByTestId("deadline");
        await expect.poll(() => deadline.textContent(), PATIENCE).toContain("Escalated to the admins at");
        expect(await deadline.textContent()).toContain("On expiry it is rejected: the action never runs");
        await expectAccessible(carol, `inbox with a deadline (${size})`);
        expect((await horizontalOverflow(carol)).scrollWidth).toBeLessThanOrEqual(viewport.width);
        fs.mkdirSync(SHOTS, { recursive: true });
        await carol.screenshot({ path: path.join(SHOTS, `deadline-escalated-${size}.png`), fullPage: true });

        const detail = carol.getByTestId("inbox-detail");
        await expect.poll(() => detail.getAttribute("data-status"), { timeout: 30_000 }).toBe("expired");
        await expect.poll(() => carol.getByTestId("vanished-detail").textContent(), PATIENCE).toContain("expired before anyone decided");
        // It stays in the list where it was, with a note, instead of silently leaving Pending.
        await expect.poll(() => expiring.getAttribute("data-status"), PATIENCE).toBe("expired");
        expect(await expiring.getByTestId("vanished-note").textContent()).toBe("Expired before anyone decided");
        await expectAccessible(carol, `inbox with an expired request (${size})`);
        await carol.screenshot({ path: path.join(SHOTS, `deadline-expired-${size}.png`), fullPage: true });
        // The requester's inbox says so too, live, without a reload.
        await expect.poll(() => hers.getAttribute("data-status"), PATIENCE).toBe("expired");
        expect(await hers.getByTestId("vanished-note").textContent()).toBe("Expired before anyone decided");
        if (size === "phone") await hers.click();
        await expect.poll(() => alice.getByTestId("vanished-detail").textContent(), PATIENCE).toContain("expired before anyone decided");
        expect((await horizontalOverflow(alice)).scrollWidth).toBeLessThanOrEqual(viewport.width);
        await alice.screenshot({ path: path.join(SHOTS, `deadline-expired-requester-${size}.png`), fullPage: true });
        await alice.context().close();
        await carol.context().close();
      } finally {
        await own.stop();
        fs.rmSync(own.dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it("shows a request lost when Harbor restarted under Decided, with a note, instead of dropping it", async () => {
    const first = await startServer({ HARBOR_STREAM_CHUNK_MS: "0" }, "e2e-inbox-lost");
    let second: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const alice = await (await browser.newContext()).newPage();
      await signInAs(alice, first.url, "alice@acme.test");
      await say(alice, "transfer 43 EUR to LOSTREQ");
      await alice.locator('[data-testid="approval-card"][data-status="pending"]').waitFor(PATIENCE);
      await alice.context().close();
      await first.stop();

      second = await startServer({ HARBOR_DATA_DIR: first.dataDir, HARBOR_STREAM_CHUNK_MS: "0" }, "e2e-inbox-lost-restarted");
      const bob = await (await browser.newContext()).newPage();
      await signInAs(bob, second.url, "bob@acme.test");
      const statusOf = async () => {
        const listed = await bob.request.get(`${second!.url}/api/trpc/interactions.list`);
        const rows = ((await listed.json()) as { result: { data: { message: string | null; status: string }[] } }).result.data;
        return rows.find((r) => r.message?.includes("LOSTREQ"))?.status;
      };
      await expect.poll(statusOf, { timeout: 30_000 }).toBe("lost");
      await bob.goto(`${second.url}/approvals`);
      await bob.getByRole("tab", { name: "Decided" }).click();
      const lost = row(bob, "LOSTREQ");
      await expect.poll(() => lost.getAttribute("data-status"), PATIENCE).toBe("lost");
      expect(await lost.getByTestId("vanished-note").textContent()).toContain("Lost when Harbor restarted");
      await lost.click();
      await expect.poll(() => bob.getByTestId("vanished-detail").textContent(), PATIENCE).toContain("This request was lost");
      await bob.context().close();
    } finally {
      await first.stop();
      await second?.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      if (second) fs.rmSync(second.dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  for (const [size, viewport] of Object.entries(SIZES))
    for (const scheme of ["light", "dark"] as const)
      it(`is accessible and fits at ${size} size, ${scheme}`, async () => {
        fs.mkdirSync(SHOTS, { recursive: true });
        const tag = randomUUID().slice(0, 8).toUpperCase();
        const alice = await (await browser.newContext()).newPage();
        await signInAs(alice, server.url, "alice@acme.test");
        await askTransfer(alice, `transfer 2500 EUR to SHOT-${tag}`);
        const carol = await (await browser.newContext({ viewport, colorScheme: scheme })).newPage();
        await signInAs(carol, server.url, "carol@acme.test");
        await carol.goto(`${server.url}/approvals`);
        const shot = row(carol, `SHOT-${tag}`);
        await expect.poll(() => shot.count(), PATIENCE).toBe(1);
        await expectAccessible(carol, `inbox (${size}, ${scheme})`);
        expect((await horizontalOverflow(carol)).scrollWidth).toBeLessThanOrEqual(viewport.width);
        await carol.screenshot({ path: path.join(SHOTS, `inbox-${size}-${scheme}.png`) });
        await shot.click();
        await expect.poll(() => carol.getByTestId("conversation").textContent(), PATIENCE).toContain(`SHOT-${tag}`);
        await carol.getByTestId("inbox-detail").getByRole("button", { name: "Approve" }).click();
        await carol.getByLabel("Type the amount or approve to confirm").waitFor(PATIENCE);
        await expectAccessible(carol, `inbox request (${size}, ${scheme})`);
        expect((await horizontalOverflow(carol)).scrollWidth).toBeLessThanOrEqual(viewport.width);
        await carol.screenshot({ path: path.join(SHOTS, `inbox-detail-${size}-${scheme}.png`) });
        await rejectAll(carol, server.url, tag);
        await alice.context().close();
        await carol.context().close();
      });
});
