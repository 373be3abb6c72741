/**
 * The sign-in page as a newcomer meets it on the demo: the demo's accounts are listed under the
 * form, and choosing one fills the form in, so signing in as the approver is two taps.
 */
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { screenshot, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const PATIENCE = { timeout: 15_000 };

describe("the sign-in page's demo accounts", () => {
  const browser = useBrowser();

  for (const size of ["desktop", "phone"] as const) {
    it(`fill the form when one is chosen (${size})`, async () => {
      const context = await browser.newContext({ viewport: SIZES[size], hasTouch: size === "phone", isMobile: size === "phone" });
      const page = await context.newPage();
      await page.goto(`${server.url}/signin`);
      await page.getByText("Demo accounts").click();
      await expect.poll(() => page.getByTestId("demo-accounts").textContent()).toContain("Password harbor for all of them");
      await screenshot(page, `signin-demo-accounts-${size}`);

      await page.getByRole("button", { name: /bob@acme\.test/ }).click();
      expect(await page.getByLabel("Email").inputValue()).toBe("bob@acme.test");
      expect(await page.getByLabel("Password").inputValue()).toBe("harbor");
      // Focus waits on "Sign in", never on something that would undo the choice.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign in");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES[size].width);

      await page.keyboard.press("Enter");
      await page.waitForURL(/\/chat/, PATIENCE);
      await expect.poll(() => page.getByTestId("who").textContent(), PATIENCE).toContain("bob@acme.test");
      await context.close();
    });
  }
});
