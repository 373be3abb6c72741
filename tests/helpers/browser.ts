/**
 * Playwright driving Debian's Chromium (never a downloaded browser).
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchBrowser } from "./chromium";

export { CHROMIUM, launchBrowser, signInAs } from "./chromium";

/** One Chromium for a test file: launched before its tests, closed after them. */
export function useBrowser(): Pick<Browser, "newContext"> {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    newContext: (options) => {
      if (!browser) throw new Error("the browser is launched in beforeAll");
      return browser.newContext(options);
    },
  };
}

/** Types a message into the chat's composer and sends it. */
export async function say(page: Page, text: string): Promise<void> {
  const box = page.getByLabel("Message");
  await hydrated(box);
  await box.fill(text);
  await box.press("Enter");
}

/**
 * Waits until React has hydrated the element: a server-rendered box is enabled before that, and
 * text typed into it then is reset by hydration and its Enter lost (seen on a loaded machine).
 */
async function hydrated(element: Locator): Promise<void> {
  await element.evaluate(
    (el) =>
      new Promise<void>((resolve) => {
        const check = () => (Object.keys(el).some((key) => key.startsWith("__reactFiber")) ? resolve() : setTimeout(check, 25));
        check();
      }),
  );
}

export const SCREENSHOT_DIR = path.resolve("test-results/screenshots");

/** Saves a full-page screenshot for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
