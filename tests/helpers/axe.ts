/**
 * Accessibility checks with axe-core in the e2e browser: a page fails on any serious or critical
 * violation of WCAG 2.x A/AA (and axe's best practices); milder findings are returned for a report.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Result } from "axe-core";
import type { Page } from "playwright-core";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

function describe(violations: Result[]): string {
  return violations
    .map(
      (v) =>
        `- [${v.impact}] ${v.id}: ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")} — ${n.failureSummary ?? ""}`).join("\n")}`,
    )
    .join("\n");
}

/** Runs axe on the page as it is now; throws, naming each node, if anything serious or critical is found. */
export async function expectAccessible(page: Page, where: string): Promise<Result[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const blocking = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (blocking.length > 0) throw new Error(`axe found serious or critical violations on ${where}:\n${describe(blocking)}`);
  return violations;
}

/** The page's widest point against the viewport: nothing may scroll sideways. */
export async function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}
