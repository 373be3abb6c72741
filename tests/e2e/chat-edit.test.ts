/**
 * Edit-and-resend and Regenerate in Chromium, at desktop and phone size, on the shared demo server:
 * alice edits her first message and gets a new reply in place of the old one — gone after a reload
 * too; Regenerate replaces the last reply; while a run works both are disabled and say why; the
 * editor works from the keyboard (Enter opens it from Edit, Escape leaves it, focus back on Edit).
 */
import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} as const;
type Size = keyof typeof SIZES;

/** The concierge's answer to anything it has no tool for. */
const MENU = "Here is what I can do";

describe("editing a message and regenerating a reply, in Chromium", () => {
  const browser = useBrowser();

  async function chatAt(size: Size): Promise<Page> {
    const context = await browser.newContext(SIZES[size]);
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    return page;
  }

  /** Presses a message's action as the device would: a tap on the phone, hover then click with a mouse. */
  async function press(size: Size, message: Locator, name: string): Promise<void> {
    const button = message.getByRole("button", { name, exact: true });
    if (size === "phone") return button.tap();
    await message.hover();
    await button.click();
  }

  const ready = (page: Page) => page.locator("textarea[name=message]:enabled").waitFor(PATIENCE);
  const idle = (page: Page) => expect.poll(() => page.getByTestId("stop-run").count(), PATIENCE).toBe(0);
  const ids = (messages: Locator) => messages.evaluateAll((els) => els.map((el) => el.getAttribute("data-message-id")));

  for (const size of ["desktop", "phone"] as const) {
    it(`at ${size} size: alice edits her first message, and regenerates the last reply`, { timeout: 180_000 }, async () => {
      const page = await chatAt(size);
      const first = `hello from the edit test (${size})`;
      await say(page, first);
      const replies = page.getByTestId("message-assistant");
      await expect.poll(() => replies.last().textContent(), PATIENCE).toContain(MENU);
      await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
      await idle(page);
      await ready(page);
      const mine = page.getByTestId("message-user");

      // Edit: the message becomes a box with its text, focused; Send asks again from there.
      await press(size, mine.first(), "Edit");
      const box = page.getByLabel("Edit your message");
      await expect.poll(() => box.inputValue(), PATIENCE).toBe(first);
      expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
      await screenshot(page, `chat-edit-${size}-editing`);
      await expectAccessible(page, `the message editor (${size})`);
      const { scrollWidth, innerWidth } = await horizontalOverflow(page);
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      await box.fill("count slowly to 3");
      const sent = Date.now();
      await page.getByTestId("message-editor").getByRole("button", { name: "Send", exact: true }).click();
      await expect.poll(() => mine.allTextContents(), PATIENCE).toEqual([expect.stringContaining("count slowly to 3")]);
      await expect.poll(() => replies.first().textContent(), PATIENCE).toMatch(/1\s*$/);
      const firstWord = Date.now() - sent;
      await expect.poll(() => replies.allTextContents(), PATIENCE).toEqual(expect.arrayContaining([expect.stringMatching(/3\s*$/)]));
      await idle(page);
      expect(await page.getByTestId("messages").textContent()).not.toContain(MENU);
      // The title was made from the first message: it follows the edit.
      await expect.poll(() => page.locator("h1").textContent(), PATIENCE).toBe("count slowly to 3");
      await screenshot(page, `chat-edit-${size}-edited`);

      // The server's record says the same after a reload.
      await page.reload();
      await expect.poll(() => mine.allTextContents(), PATIENCE).toEqual([expect.stringContaining("count slowly to 3")]);
      await expect.poll(() => replies.count(), PATIENCE).toBeGreaterThan(0);
      expect(await page.getByTestId("messages").textContent()).not.toContain(MENU);
      expect(await page.getByTestId("messages").textContent()).not.toContain(first);
      await ready(page);

      // Regenerate: only on the last reply; it is replaced by a new one (a new message), not added to.
      const before = await ids(replies);
      expect(await replies.first().getByRole("button", { name: "Regenerate" }).count()).toBe(before.length > 1 ? 0 : 1);
      const asked = Date.now();
      // With a mouse, a double click: one rewind, and no error for the second click.
      if (size === "desktop") {
        await replies.last().hover();
        await replies.last().getByRole("button", { name: "Regenerate", exact: true }).dblclick();
      } else await press(size, replies.last(), "Regenerate");
      await expect.poll(async () => (await ids(replies)).at(-1), PATIENCE).not.toBe(before.at(-1));
      console.log(`${size}: edit → first new word ${firstWord} ms; regenerate → old reply replaced ${Date.now() - asked} ms`);
      await idle(page);
      await expect.poll(() => ids(replies), PATIENCE).toHaveLength(before.length);
      expect((await ids(replies)).some((id) => before.includes(id))).toBe(false);
      expect(await page.getByTestId("run-error").count()).toBe(0);
      expect(await mine.allTextContents()).toEqual([expect.stringContaining("count slowly to 3")]);
      await screenshot(page, `chat-edit-${size}-regenerated`);
      // One answer streamed as several messages has one row of actions, under its end, copying it whole.
      expect(await page.getByTestId("message-assistant").getByRole("button", { name: "Copy", exact: true }).count()).toBe(1);
      const regenerated = await ids(replies);
      await page.reload();
      await expect.poll(() => ids(replies), PATIENCE).toEqual(regenerated);
      await page.context().close();
    });

    it(`at ${size} size: while a run works, Edit and Regenerate are disabled and say why`, { timeout: 120_000 }, async () => {
      const page = await chatAt(size);
      await say(page, `count slowly to 40 (${size} busy)`);
      await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
      await page.getByTestId("stop-run").waitFor({ state: "visible", timeout: PATIENCE.timeout });
      const mine = page.getByTestId("message-user").first();
      const edit = mine.getByRole("button", { name: "Edit", exact: true });
      await expect.poll(() => edit.isDisabled(), PATIENCE).toBe(true);
      const why = mine.locator("[data-why]");
      expect(await why.getAttribute("data-why")).toMatch(/wait for the reply/i);
      // The reason shows on a tap (a phone has no hover) or on hover.
      if (size === "phone") await why.tap();
      else await why.hover();
      await expect.poll(() => page.getByRole("tooltip").textContent(), PATIENCE).toMatch(/wait for the reply/i);
      await screenshot(page, `chat-edit-${size}-busy`);
      await expectAccessible(page, `disabled message actions (${size})`);
      await page.getByTestId("stop-run").click();
      await idle(page);
      await expect.poll(() => edit.isDisabled(), PATIENCE).toBe(false);
      await page.context().close();
    });
  }

  it("works from the keyboard: Enter on Edit opens the box, Escape leaves it as it was", { timeout: 90_000 }, async () => {
    const page = await chatAt("desktop");
    await say(page, "hello from the keyboard");
    await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain(MENU);
    await idle(page);
    await ready(page);
    const mine = page.getByTestId("message-user").first();
    const edit = mine.getByRole("button", { name: "Edit", exact: true });
    await edit.focus();
    // Shown while it has the focus, though the pointer is elsewhere.
    await expect.poll(() => mine.getByTestId("message-actions").evaluate((el) => getComputedStyle(el).opacity), PATIENCE).toBe("1");
    await page.keyboard.press("Enter");
    const box = page.getByLabel("Edit your message");
    await box.waitFor(PATIENCE);
    await page.keyboard.type(" — changed");
    await page.keyboard.press("Escape");
    await expect.poll(() => box.count(), PATIENCE).toBe(0);
    expect(await mine.textContent()).toContain("hello from the keyboard");
    expect(await mine.textContent()).not.toContain("changed");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), PATIENCE).toBe("Edit");
    await page.context().close();
  });
});
