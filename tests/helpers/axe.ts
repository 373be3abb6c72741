/**
 * Accessibility checks with axe-core in the e2e browser: a page fails on any serious or critical
 * violation of WCAG 2.x A/AA (and axe's best practices); milder findings are returned for a report.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Result } from "axe-core";
import type { Locator, Page } from "playwright-core";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

function describe(violations: Result[]): string {
  return violations
    .map(
      (v) =>
        `- [${v.impact}] ${v.id}: ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")} — ${n.failureSummary ?? ""}`).join("\n")}`,
    )
    .join("\n");
}

/**
 * Lets what is moving come to rest (a toast sliding in is half transparent, and its contrast with
 * it): every finite animation or transition ends, or two seconds pass. Endless ones (a pulsing
 * dot) are left running.
 */
async function settled(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
          .map((a) => a.finished.catch(() => undefined)),
      ),
      new Promise((resolve) => setTimeout(resolve, 2_000)),
    ]),
  );
}

/** Runs axe on the page once it is at rest; throws, naming each node, if anything serious or critical is found. */
export async function expectAccessible(page: Page, where: string): Promise<Result[]> {
  await settled(page);
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const blocking = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (blocking.length > 0) throw new Error(`axe found serious or critical violations on ${where}:\n${describe(blocking)}`);
  return violations;
}

/** The page's widest point against the viewport: nothing may scroll sideways. */
export async function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

/**
 * A control's own look, for what axe leaves out (it skips disabled controls' contrast): its text
 * colour against its background (WCAG contrast ratio), its opacity and its border style.
 */
export async function controlLook(control: Locator): Promise<{ contrast: number; opacity: number; borderStyle: string }> {
  return control.evaluate((element) => {
    const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = (css: string) => {
      const [r = 0, g = 0, b = 0] = rgb(css).map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const style = getComputedStyle(element);
    // The first ancestor with a background paints behind a transparent control.
    let painted: Element | null = element;
    while (painted && /rgba\(0, 0, 0, 0\)|transparent/.test(getComputedStyle(painted).backgroundColor)) painted = painted.parentElement;
    const background = painted ? getComputedStyle(painted).backgroundColor : "rgb(255, 255, 255)";
    const [light, dark] = [luminance(style.color), luminance(background)].sort((a, b) => b - a) as [number, number];
    return { contrast: (light + 0.05) / (dark + 0.05), opacity: Number(style.opacity), borderStyle: style.borderTopStyle };
  });
}
