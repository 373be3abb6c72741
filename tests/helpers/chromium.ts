/**
 * Debian's Chromium (never a downloaded browser) for the browser tests and the benchmarks alike:
 * launching it, and signing a page in. No test runner here, so a benchmark can import it.
 */
import { chromium, type Browser, type Page } from "playwright-core";

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

export async function signInAs(page: Page, baseUrl: string, email: string, password = "harbor"): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(/\/chat/);
}
