/**
 * The chat's composer, suggestions, cards and message actions in Chromium, with the concierge on
 * the shared demo server: every suggestion chip gets a real answer; pasted text is never cut, a
 * counter shows near the server's limit and Send is refused past it with the reason; a consent
 * card never puts the focus on Cancel; messages can be copied. At desktop and phone size.
 */
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** The server's default HARBOR_MAX_MESSAGE_CHARS. */
const LIMIT = 32_000;

describe("chat composer, chips, cards and message actions in Chromium", () => {
  const browser = useBrowser();

  async function chatAt(size: keyof typeof SIZES, email = "carol@acme.test"): Promise<Page> {
    const context = await browser.newContext({ viewport: SIZES[size], hasTouch: size === "phone" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await context.newPage();
    await signInAs(page, server.url, email);
    await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("How can the concierge help?");
    return page;
  }

  it("every suggestion chip the concierge offers gets a real answer", { timeout: 240_000 }, async () => {
    const page = await chatAt("desktop");
    // One chip per tool, once the agent's tools have loaded.
    const chips = page.getByRole("list", { name: "Suggestions" }).getByRole("button");
    await expect.poll(() => chips.count(), PATIENCE).toBeGreaterThan(3);
    const labels = await chips.allTextContents();
    expect(labels[0]).toBe("What can you do?");
    expect(labels.length).toBeGreaterThan(3);
    for (const label of labels) {
      await page.goto(`${server.url}/chat`);
      const chip = page.getByRole("list", { name: "Suggestions" }).getByRole("button", { name: label, exact: true });
      await chip.waitFor(PATIENCE);
      await expect.poll(() => chip.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactFiber"))), PATIENCE).toBe(true);
      await chip.click();
      const box = page.getByLabel("Message");
      await expect.poll(() => box.inputValue(), PATIENCE).not.toBe("");
      await box.press("Enter");
      // An answer: the concierge's words, or the request card it opened for the chip.
      const answered = () =>
        page.evaluate(
          () => document.querySelectorAll('[data-testid="message-assistant"]:not(.streaming), [data-testid="messages"] article').length,
        );
      await expect.poll(answered, { ...PATIENCE, message: label }).toBeGreaterThan(0);
      const said = (await page.getByTestId("messages").textContent()) ?? "";
      expect(said, label).not.toMatch(/can't help|can’t help/i);
      if (label === "What can you do?") {
        await expect.poll(() => page.getByTestId("message-assistant").last().locator("li").count(), PATIENCE).toBeGreaterThan(3);
        await screenshot(page, "chat-actions-desktop-what-can-you-do");
      }
    }
    await page.context().close();
  });

  for (const size of ["desktop", "phone"] as const) {
    it(`at ${size} size: pasted text is never cut; a counter near the limit, Send refused past it`, { timeout: 120_000 }, async () => {
      const page = await chatAt(size);
      const box = page.getByLabel("Message");
      await box.focus();
      // 25,000 characters: above the old 20,000 cut, under the server's limit.
      await page.keyboard.insertText("a".repeat(25_000));
      await expect.poll(() => box.inputValue().then((v) => v.length), PATIENCE).toBe(25_000);
      const send = page.getByRole("button", { name: "Send", exact: true });
      expect(await send.isDisabled()).toBe(false);
      // Past the limit: nothing cut, Send refused, and why.
      await page.keyboard.insertText("b".repeat(LIMIT - 25_000 + 5));
      await expect.poll(() => box.inputValue().then((v) => v.length), PATIENCE).toBe(LIMIT + 5);
      const counter = page.getByTestId("composer-counter");
      await expect.poll(() => counter.textContent(), PATIENCE).toContain("32,005 / 32,000");
      expect(await send.isDisabled()).toBe(true);
      expect(await page.getByTestId("composer-limit").textContent()).toMatch(/5 characters? too long/);
      await box.press("Enter");
      expect(await page.getByTestId("message-user").count()).toBe(0);
      await screenshot(page, `chat-actions-${size}-too-long`);
      // Shortened to the limit, it goes.
      await box.evaluate((el) => (el as HTMLTextAreaElement).setSelectionRange(0, 0));
      for (let i = 0; i < 5; i += 1) await box.press("Delete");
      await expect.poll(() => send.isDisabled(), PATIENCE).toBe(false);
      await page.context().close();
    });

    it(`at ${size} size: the calendar consent card does not focus Cancel`, { timeout: 90_000 }, async () => {
      const page = await chatAt(size);
      await say(page, "check my calendar");
      const card = page.getByTestId("oauth-card").last();
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("pending");
      await expect.poll(() => card.getByRole("button", { name: "Connect" }).isEnabled(), PATIENCE).toBe(true);
      // Whatever has the focus, it is not a dismissive action.
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim() ?? ""), PATIENCE).toBe("Connect");
      await screenshot(page, `chat-actions-${size}-oauth-focus`);
      await card.getByRole("button", { name: "Cancel" }).click();
      await expect.poll(() => card.getAttribute("data-status"), PATIENCE).toBe("cancelled");
      await page.context().close();
    });

    it(`at ${size} size: copy a user's message and an assistant's answer`, { timeout: 90_000 }, async () => {
      const page = await chatAt(size);
      await say(page, `Hello from the copy test (${size})`);
      const reply = page.getByTestId("message-assistant").last();
      await expect.poll(() => reply.textContent(), PATIENCE).toContain("Here is what I can do");
      await page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
      const mine = page.getByTestId("message-user").last();
      await mine.hover();
      await mine.getByRole("button", { name: "Copy", exact: true }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`Hello from the copy test (${size})`);
      await reply.hover();
      await reply.getByRole("button", { name: "Copy", exact: true }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), PATIENCE).toContain("Here is what I can do");
      await screenshot(page, `chat-actions-${size}-copy`);
      await page.context().close();
    });
  }
});
