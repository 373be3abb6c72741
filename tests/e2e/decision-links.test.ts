import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { eventually, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

interface Link {
  userId: string;
  email: string;
  approve: string;
  reject: string;
}

async function signInHere(page: Page, email: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("harbor");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

describe("decision links in Chromium", () => {
  const browser = useBrowser();
  let receiver: WebhookReceiver;
  let carol: Page;
  let hookId: string;

  // Carol (an admin) sends acme's pause.requested messages to a real receiver on this machine.
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    carol = await (await browser.newContext()).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
    const created = await carol.request.post(`${server.url}/api/trpc/webhooks.create`, {
      data: { url: receiver.url, events: ["pause.requested"] },
    });
    expect(created.status()).toBe(200);
    const hook = ((await created.json()) as { result: { data: { id: string; secret: string } } }).result.data;
    receiver.secret = hook.secret;
    hookId = hook.id;
  });
  afterAll(async () => {
    await carol.request.post(`${server.url}/api/trpc/webhooks.delete`, { data: { webhookId: hookId } });
    await carol.context().close();
    await receiver.close();
  });

  /** Alice asks for a transfer in her chat; returns her page and the links the webhook carried for it. */
  async function aliceAsks(text: string, account: string): Promise<{ alice: Page; links: Link[] }> {
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, text);
    await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
    const pending = (await (
      await alice.request.get(`${server.url}/api/trpc/interactions.list?input=${encodeURIComponent('{"status":"pending"}')}`)
    ).json()) as { result: { data: { interactionId: string; tool: { args: { to?: string } } | null }[] } };
    const gate = pending.result.data.find((i) => i.tool?.args.to === account)!;
    const message = await eventually(
      () => receiver.received.find((r) => r.payload.type === "pause.requested" && r.payload.data.interactionId === gate.interactionId),
      PATIENCE.timeout,
    );
    expect(message.verified).toBe(true);
    expect(message.body).not.toContain(account);
    return { alice, links: message.payload.data.decisionLinks as Link[] };
  }

  it("bob opens his link signed out, signs in, approves, and alice's chat shows the transfer; the link is then used", async () => {
    const { alice, links } = await aliceAsks("transfer 10 EUR to X-LINK-1", "X-LINK-1");
    expect(links.map((l) => l.email).sort()).toEqual(["bob@acme.test", "carol@acme.test"]);
    const link = links.find((l) => l.email === "bob@acme.test")!.approve;
    expect(link.startsWith(`${server.url}/decide/`)).toBe(true);

    // A mail scanner fetching the link signed out is sent to sign in; nothing is decided.
    const scanned = await fetch(link, { redirect: "manual" });
    expect([303, 307]).toContain(scanned.status);
    expect(scanned.headers.get("location")).toContain("/signin");

    const bob = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await bob.goto(link);
    await bob.waitForURL(/\/signin\?/);
    const path = new URL(link).pathname;
    expect(new URL(bob.url()).searchParams.get("callbackUrl")).toBe(path);
    await signInHere(bob, "bob@acme.test");
    await bob.waitForURL((url) => url.pathname === path, PATIENCE);
    const state = bob.getByTestId("link-state");
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("open");
    const request = bob.getByTestId("link-request");
    expect(await request.textContent()).toContain("X-LINK-1");
    expect(await request.textContent()).toContain("Alice");
    expect(await bob.getByRole("heading", { level: 1 }).textContent()).toBe("Approve this request?");
    // Opening the page decided nothing.
    expect(await alice.getByTestId("approval-card").getAttribute("data-status")).toBe("pending");
    await expectAccessible(bob, "the decision page (open)");
    expect((await horizontalOverflow(bob)).scrollWidth).toBeLessThanOrEqual(SIZES.desktop.width);
    await screenshot(bob, "decision-link-open-desktop");

    await bob.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("used");
    expect(await state.textContent()).toContain("This link was already used");
    expect(await state.textContent()).toContain("You approved this request with it");

    await expect
      .poll(() => alice.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Transferred 10 EUR to X-LINK-1.");
    await expect.poll(() => alice.getByTestId("approval-card").textContent(), PATIENCE).toMatch(/Approved by Bob.* · Transfer made/);
    await screenshot(alice, "decision-link-alice-result");

    // Reopening the link: used, and said so.
    await bob.goto(link);
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("used");
    expect(await bob.getByRole("heading", { level: 1 }).textContent()).toBe("This link was already used");
    expect(await bob.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0);
    await expectAccessible(bob, "the decision page (used)");
    await screenshot(bob, "decision-link-used-desktop");
    await alice.context().close();
    await bob.context().close();
  });

  it("on a phone in dark mode: another approver is refused, and bob's reject link rejects", async () => {
    const { alice, links } = await aliceAsks("transfer 11 EUR to X-LINK-2", "X-LINK-2");
    const link = links.find((l) => l.email === "bob@acme.test")!.reject;

    // Carol is signed in, but the link is bob's: refused, nothing shown, nothing changed.
    await carol.goto(link);
    await expect.poll(() => carol.getByTestId("link-not-yours").count(), PATIENCE).toBe(1);
    expect(await carol.getByRole("heading", { level: 1 }).textContent()).toBe("This link is for another approver");
    expect(await carol.textContent("body")).not.toContain("X-LINK-2");
    await expectAccessible(carol, "the decision page, another approver's link");
    await screenshot(carol, "decision-link-not-yours-desktop");
    // Not a link at all, or one whose signature was altered: said plainly.
    for (const bad of [`${server.url}/decide/not-a-link`, `${link.slice(0, -2)}xx`]) {
      await carol.goto(bad);
      await expect.poll(() => carol.getByTestId("link-invalid").count(), PATIENCE).toBe(1);
    }

    const bob = await (await browser.newContext({ viewport: SIZES.phone, colorScheme: "dark" })).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(link);
    const state = bob.getByTestId("link-state");
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("open");
    expect(await bob.getByRole("heading", { level: 1 }).textContent()).toBe("Reject this request?");
    await expectAccessible(bob, "the decision page on a phone, dark");
    expect((await horizontalOverflow(bob)).scrollWidth).toBeLessThanOrEqual(SIZES.phone.width);
    await screenshot(bob, "decision-link-open-phone-dark");

    await bob.getByLabel("Reason (optional)").fill("wrong account");
    await bob.getByRole("button", { name: "Reject", exact: true }).click();
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("used");
    await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("rejected");
    await expect.poll(() => alice.getByTestId("approval-card").textContent(), PATIENCE).toContain("wrong account");
    expect((await horizontalOverflow(bob)).scrollWidth).toBeLessThanOrEqual(SIZES.phone.width);
    await expectAccessible(bob, "the used decision page on a phone, dark");
    await screenshot(bob, "decision-link-used-phone-dark");

    // Carol's own link for the same request now says who decided.
    await carol.goto(links.find((l) => l.email === "carol@acme.test")!.approve);
    await expect.poll(() => carol.getByTestId("link-state").getAttribute("data-state"), PATIENCE).toBe("decided");
    expect(await carol.getByRole("heading", { level: 1 }).textContent()).toBe("Already rejected by Bob");
    await screenshot(carol, "decision-link-decided-desktop");
    await alice.context().close();
    await bob.context().close();
  });

  it("a large transfer needing two approvers: bob's link is one vote (after typing the amount), carol's completes it", async () => {
    const { alice, links } = await aliceAsks("transfer 12000 EUR to X-LINK-3", "X-LINK-3");
    const bob = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(links.find((l) => l.email === "bob@acme.test")!.approve);
    const state = bob.getByTestId("link-state");
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("open");
    expect(await bob.getByTestId("link-request").textContent()).toContain("Votes (0 of 2 approvals)");
    // The one decision control: Approve asks for the amount before anything is sent.
    await bob.getByRole("button", { name: "Approve", exact: true }).click();
    const confirm = bob.getByRole("button", { name: "Confirm approve" });
    expect(await confirm.isDisabled()).toBe(true);
    expect(await state.getAttribute("data-state")).toBe("open");
    await bob.getByLabel("Type the amount or approve to confirm").fill("12,000");
    expect(await confirm.isDisabled()).toBe(false);
    await screenshot(bob, "decision-link-large-quorum-desktop");
    await confirm.click();
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("used");
    expect(await state.textContent()).toContain("it waits for 1 more approval");
    await expect.poll(() => alice.getByTestId("approval-card").textContent(), PATIENCE).toContain("(1 so far)");
    expect(await alice.getByTestId("approval-card").getAttribute("data-status")).toBe("pending");

    await carol.goto(links.find((l) => l.email === "carol@acme.test")!.approve);
    await expect.poll(() => carol.getByTestId("link-state").getAttribute("data-state"), PATIENCE).toBe("open");
    await carol.getByRole("button", { name: "Approve", exact: true }).click();
    await carol.getByLabel("Type the amount or approve to confirm").fill("approve");
    await carol.getByRole("button", { name: "Confirm approve" }).click();
    await expect.poll(() => carol.getByTestId("link-state").getAttribute("data-state"), PATIENCE).toBe("used");
    await expect
      .poll(() => alice.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Transferred 12,000 EUR to X-LINK-3.");
    await alice.context().close();
    await bob.context().close();
  });
  it("on a phone, a 2,500 EUR transfer's link asks for the typed amount before approving", async () => {
    const { alice, links } = await aliceAsks("transfer 2500 EUR to X-LINK-4", "X-LINK-4");
    const bob = await (await browser.newContext({ viewport: SIZES.phone, hasTouch: true, isMobile: true })).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    await bob.goto(links.find((l) => l.email === "bob@acme.test")!.approve);
    const state = bob.getByTestId("link-state");
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("open");
    await bob.getByRole("button", { name: "Approve", exact: true }).tap();
    const typed = bob.getByLabel("Type the amount or approve to confirm");
    await expect.poll(() => typed.count(), PATIENCE).toBe(1);
    expect(await state.getAttribute("data-state")).toBe("open");
    expect((await horizontalOverflow(bob)).scrollWidth).toBeLessThanOrEqual(SIZES.phone.width);
    await typed.fill("2,500");
    await screenshot(bob, "decision-link-large-phone");
    await bob.getByRole("button", { name: "Confirm approve" }).tap();
    await expect.poll(() => state.getAttribute("data-state"), PATIENCE).toBe("used");
    await expect
      .poll(() => alice.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Transferred 2,500 EUR to X-LINK-4.");
    await alice.context().close();
    await bob.context().close();
  });
});
