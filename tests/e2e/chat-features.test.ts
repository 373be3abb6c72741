/**
 * The chat's own features, on a server of this file's own with a scripted model (so the assistant
 * agent is offered next to the concierge): Markdown, the agent picker, suggestions, Stop, withdraw,
 * a composer free during background work, and renaming, searching and deleting conversations — at
 * desktop and phone size, with axe and no sideways scrolling.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, signInAs, useBrowser } from "../helpers/browser";
import { startModelServer, type ModelServer } from "../helpers/model-server";
import { startOwnServer, type OwnServer } from "../helpers/own-server";

const PATIENCE = { timeout: 20_000 };
const SHOTS = process.env.CHAT_SHOTS_DIR ?? "/tmp/chatui-shots";
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

const MARKDOWN_REPLY = [
  "Here is **bold** text and a [safe link](https://example.com/docs).",
  "",
  "Raw HTML stays out: <b data-testid='raw-html'>raw</b> <img src=x onerror=alert(1)>",
  "",
  "A [bad link](javascript:alert(1)) keeps its words only.",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
].join("\n");

describe("the shared e2e server has no model", () => {
  const browser = useBrowser();
  it("offers only the concierge in the picker", async () => {
    const server = inject("servers")[0]!;
    const page = await (await browser.newContext({ viewport: SIZES.desktop })).newPage();
    await signInAs(page, server.url, "alice@acme.test");
    const picker = page.getByLabel("Agent");
    await picker.waitFor(PATIENCE);
    expect(await picker.locator("option").allTextContents()).toEqual(["Concierge"]);
    await page.context().close();
  });
});

describe("chat features on a server with a scripted model", () => {
  const browser = useBrowser();
  let server: OwnServer;
  let model: ModelServer;

  beforeAll(async () => {
    model = await startModelServer(() => ({ text: MARKDOWN_REPLY }));
    server = await startOwnServer("pglite", "e2e-chat-features", {
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_STREAM_CHUNK_MS: "10",
      HARBOR_RESEARCH_MS: "6000",
    });
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  async function open(size: Size, email = "alice@acme.test", colorScheme: "light" | "dark" = "light"): Promise<Page> {
    const page = await (await browser.newContext({ viewport: SIZES[size], colorScheme })).newPage();
    await signInAs(page, server.url, email);
    await page.getByLabel("Message").waitFor(PATIENCE);
    return page;
  }

  /** The conversation list: the sidebar on desktop, the drawer (opened here) on phones. */
  async function threads(page: Page, size: Size): Promise<Locator> {
    if (size === "desktop") return page.locator("aside[aria-label=Conversations]");
    const dialog = page.getByRole("dialog");
    if (!(await dialog.isVisible())) await page.getByRole("button", { name: "Conversations" }).click();
    await dialog.waitFor(PATIENCE);
    return dialog;
  }

  async function checkLayout(page: Page, where: string) {
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${where} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
    await expectAccessible(page, where);
  }

  for (const size of ["desktop", "phone"] as const) {
    describe(`at ${size} size`, () => {
      it("the picker offers both agents; the assistant's Markdown renders safely; the thread keeps its agent", async () => {
        const page = await open(size);
        const picker = page.getByLabel("Agent");
        await expect.poll(() => picker.locator("option").allTextContents(), PATIENCE).toEqual(["Concierge", "Assistant"]);
        await picker.selectOption("assistant");
        await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the assistant help?");
        model.script(() => ({ text: MARKDOWN_REPLY }));
        const asked = model.requests.length;
        await say(page, `Show me some markdown (${size})`);
        const reply = page.getByTestId("message-assistant").last();
        await reply.locator("a", { hasText: "safe link" }).waitFor(PATIENCE);
        expect(model.requests.length).toBeGreaterThan(asked);
        const link = reply.locator("a", { hasText: "safe link" });
        expect(await link.getAttribute("href")).toBe("https://example.com/docs");
        expect(await link.getAttribute("target")).toBe("_blank");
        expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
        expect(await reply.locator("strong", { hasText: "bold" }).count()).toBe(1);
        // Raw HTML is never rendered: no element from it, no image loaded.
        expect(await reply.locator("[data-testid=raw-html], img, b").count()).toBe(0);
        // A javascript: address is not a link.
        expect(await reply.locator("a", { hasText: "bad link" }).count()).toBe(0);
        expect(await reply.textContent()).toContain("bad link");
        expect(await reply.getByTestId("code-block").textContent()).toContain("const answer: number = 42;");
        expect(await reply.locator(".message-author").textContent()).toBe("Assistant");
        // The link is clickable: it opens a new tab (to an address nothing answers here).
        const popup = page.context().waitForEvent("page", PATIENCE);
        await link.click();
        await (await popup).close();
        await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
        await page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
        await checkLayout(page, `the assistant's markdown at ${size}`);

        // Reloaded, the conversation still talks to the assistant.
        await page.reload();
        await expect
          .poll(() => page.getByTestId("message-assistant").last().locator(".message-author").textContent(), PATIENCE)
          .toBe("Assistant");
        const before = model.requests.length;
        model.script(() => ({ text: "Still the assistant." }));
        await page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
        await say(page, "Who is this?");
        await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain("Still the assistant.");
        expect(model.requests.length).toBeGreaterThan(before);
        await page.context().close();
      });

      it("suggestions name every one of the concierge's tools and fill the composer without sending", async () => {
        const page = await open(size);
        const chips = page.getByRole("list", { name: "Suggestions" }).getByRole("button");
        await expect.poll(() => chips.allTextContents(), PATIENCE).toContain("Send an email");
        // One chip per capability the agent declares (its catalogue, as the UI reads it), none left out.
        const listed = await page.request.get(`${server.url}/api/trpc/agents.list`);
        const agents = ((await listed.json()) as { result: { data: { id: string; tools: { title: string; kind: string }[] }[] } }).result
          .data;
        const concierge = agents.find((a) => a.id === "concierge")!;
        expect(new Set(concierge.tools.map((t) => t.kind)).size, "the concierge declares tools of several kinds").toBeGreaterThan(1);
        expect((await chips.allTextContents()).sort()).toEqual(["What can you do?", ...concierge.tools.map((t) => t.title)].sort());
        // Every chip is on screen (they wrap; none is cut off at the side).
        for (const chip of await chips.all()) {
          const box = (await chip.boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(SIZES[size].width);
        }
        await page.screenshot({ path: `${SHOTS}/suggestions-${size}.png` });
        await page.getByRole("button", { name: "Send an email" }).click();
        expect(await page.getByLabel("Message").inputValue()).toMatch(/^Send an email to \S+@\S+ saying .+/);
        expect(await page.getByTestId("message-user").count()).toBe(0);
        await checkLayout(page, `the empty chat at ${size}`);
        await page.context().close();
      });

      it("Stop cancels the owner's run and leaves a note; the composer opens again", async () => {
        const page = await open(size);
        await say(page, "count slowly to 200");
        const stop = page.getByRole("button", { name: "Stop" });
        await stop.waitFor(PATIENCE);
        await expect.poll(() => page.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThan(0);
        await stop.click();
        await expect.poll(() => page.getByTestId("system-note").last().textContent(), PATIENCE).toContain("cancelled");
        await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
        expect(await page.getByRole("button", { name: "Stop" }).count()).toBe(0);
        expect(await page.getByRole("button", { name: "Send" }).count()).toBe(1);
        await checkLayout(page, `a stopped run at ${size}`);
        await page.context().close();
      });

      it("a new approval card takes the focus; its requester withdraws it; research does not lock the composer", async () => {
        const page = await open(size);
        await say(page, `send an email to withdraw-${size}@example.com saying never mind`);
        const card = page.locator('[data-testid="approval-card"][data-status="pending"]');
        await card.waitFor(PATIENCE);
        await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest("[data-testid=approval-card]")), PATIENCE).toBe(true);
        expect(await page.getByLabel("Message").getAttribute("placeholder")).toBe("Answer the request above first");
        await checkLayout(page, `a pending approval at ${size}`);
        await card.getByRole("button", { name: "Withdraw request" }).click();
        await page.locator('[data-testid="approval-card"][data-status="cancelled"]').waitFor(PATIENCE);
        await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);

        // Background work: the composer stays usable while the research runs.
        await say(page, "research tide pools");
        await page.getByTestId("external-wait").waitFor(PATIENCE);
        await expect.poll(() => page.getByLabel("Message").isDisabled(), PATIENCE).toBe(false);
        expect(await page.getByTestId("external-wait").getAttribute("aria-busy")).toBe("true");
        await page.context().close();
      });

      it("conversations are grouped by day, renamed, searched and deleted", async () => {
        const page = await open(size, "bob@acme.test");
        const topic = `Quokka facts ${size}`;
        await say(page, topic);
        await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
        await page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
        let list = await threads(page, size);
        await list.getByRole("region", { name: "Today" }).waitFor(PATIENCE);
        await expect.poll(() => list.getByTestId("thread-list").textContent(), PATIENCE).toContain(topic);

        // Rename.
        await list.getByTestId("thread-row").filter({ hasText: topic }).getByRole("button", { name: "Rename" }).click();
        const title = list.getByLabel("Conversation title");
        await title.fill(`Renamed ${size}`);
        await title.press("Enter");
        await expect.poll(() => list.getByTestId("thread-list").textContent(), PATIENCE).toContain(`Renamed ${size}`);
        await checkLayout(page, `the conversation list at ${size}`);

        // Search: by title, and by what was said.
        const search = list.getByLabel("Search conversations");
        await search.fill("no-such-conversation-xyz");
        await expect.poll(() => list.textContent(), PATIENCE).toContain("No matches");
        await search.fill(`renamed ${size}`);
        await expect.poll(() => list.getByTestId("thread-list").textContent(), PATIENCE).toContain(`Renamed ${size}`);
        await search.fill("");

        // Delete: confirmed, then gone; the open conversation leaves for a new one.
        await list
          .getByTestId("thread-row")
          .filter({ hasText: `Renamed ${size}` })
          .getByRole("button", { name: "Delete" })
          .click();
        await list.getByRole("button", { name: "Yes, delete" }).click();
        await page.waitForURL(/\/chat$/, PATIENCE);
        list = await threads(page, size);
        await expect.poll(async () => (await list.textContent()) ?? "", PATIENCE).not.toContain(`Renamed ${size}`);
        await page.context().close();
      });
    });
  }

  it("screenshots of the chat at both sizes, light and dark", { timeout: 180_000 }, async () => {
    for (const size of ["desktop", "phone"] as const) {
      for (const scheme of ["light", "dark"] as const) {
        const page = await open(size, "carol@acme.test", scheme);
        await page.getByRole("button", { name: "Send an email" }).waitFor(PATIENCE);
        await page
          .getByTestId("thread-list")
          .first()
          .waitFor(PATIENCE)
          .catch(() => undefined);
        await page.screenshot({ path: `${SHOTS}/empty-${size}-${scheme}.png` });
        if (size === "desktop" && scheme === "light") {
          await page.getByLabel("Agent").selectOption("assistant");
          model.script((request) =>
            request.messages.at(-1)?.role === "user" && /send an email/i.test(request.messages.at(-1)?.content ?? "")
              ? { toolCalls: [{ name: "send_email", args: { to: "shots@example.com", body: "hello there" } }] }
              : { text: MARKDOWN_REPLY },
          );
          await say(page, "Show me some markdown");
          await page.getByTestId("code-block").waitFor(PATIENCE);
          await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, PATIENCE);
          await page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
          await say(page, "send an email to shots@example.com saying hello there");
          await page.locator('[data-testid="approval-card"][data-status="pending"]').waitFor(PATIENCE);
        } else {
          const link = (await threads(page, size)).locator("a.thread").first();
          await link.click();
          await page.getByTestId("code-block").waitFor(PATIENCE);
          if (size === "phone") await page.waitForTimeout(400);
        }
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${SHOTS}/conversation-${size}-${scheme}.png` });
        await page.context().close();
      }
    }
  });
});
