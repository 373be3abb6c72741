/**
 * Playwright driving Debian's Chromium (never a downloaded browser).
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

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

export async function signInAs(page: Page, baseUrl: string, email: string, password = "harbor"): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(/\/chat/);
}
