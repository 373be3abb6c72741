import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { expectAccessible, horizontalOverflow } from "../helpers/axe";
import { say, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
const SHOTS = process.env.OPS_SHOTS_DIR ?? "/tmp/opsui-shots";
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** Alice starts a slow counting run; its id, from the console's list (carol is an admin). */
async function countingRun(alice: Page, carol: Page, to: number): Promise<string> {
  await alice.goto(`${server.url}/chat`);
  await say(alice, `count slowly to ${to}`);
  await expect.poll(() => alice.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThanOrEqual(1);
  await carol.goto(`${server.url}/console?q=${encodeURIComponent(`count slowly to ${to}`)}`);
  const row = carol.locator('[data-testid="run-row"][data-status="running"][data-parent-run-id=""]').first();
  await expect.poll(() => row.count(), PATIENCE).toBe(1);
  return (await row.getAttribute("data-run-id"))!;
}

/** Whether the named steering button is enabled, and the reason shown when it is not. */
async function control(page: Page, name: string): Promise<{ enabled: boolean; why: string | null }> {
  const button = page.getByTestId("run-detail").getByRole("button", { name, exact: true });
  const enabled = await button.isEnabled();
  const why = enabled ? null : await button.locator("xpath=..").getAttribute("data-why");
  return { enabled, why };
}

describe("the operator console: run page, payloads, instructions by state, search in the URL", () => {
  const browser = useBrowser();
  let alice: Page;
  let carol: Page;
  beforeAll(async () => {
    alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    carol = await (await browser.newContext()).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
  });

  it("keeps search and filters in the URL and finds a run by its thread's title", async () => {
    // Long enough to still run while the filters change: the live list drops it from "running" as it ends.
    const runId = await countingRun(alice, carol, 60);
    expect(new URL(carol.url()).searchParams.get("q")).toBe("count slowly to 60");
    const row = carol.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    expect(await row.textContent()).toContain("count slowly to 60");
    await carol.getByLabel("Filter by status").selectOption("running");
    await carol.waitForURL(/status=running/);
    await carol.getByTestId("runs-search").fill(runId.slice(0, 8));
    await carol.waitForURL(new RegExp(`q=${runId.slice(0, 8)}`));
    await expect.poll(() => carol.getByTestId("run-row").count(), PATIENCE).toBe(1);
    // Reloading keeps the view.
    await carol.reload();
    await expect.poll(() => carol.getByTestId("runs-search").inputValue(), PATIENCE).toBe(runId.slice(0, 8));
    expect(await carol.getByLabel("Filter by status").inputValue()).toBe("running");
  });

  it("enables only the instructions that apply, says why the others are off, and shows payloads on a run's page", async () => {
    const runId = await countingRun(alice, carol, 10);
    await carol.goto(`${server.url}/console/runs/${runId}`);
    const detail = carol.getByTestId("run-detail");
    await expect.poll(() => detail.getByTestId("run-status").textContent(), PATIENCE).toBe("running");
    expect(await control(carol, "Pause")).toEqual({ enabled: true, why: null });
    expect((await control(carol, "Resume")).why).toMatch(/only to a run an operator paused/);
    expect((await control(carol, "Approve gate")).why).toMatch(/no pending approval gate/);
    expect((await control(carol, "Cancel (cascade)")).enabled).toBe(true);

    // The reason shows as a tooltip on hover.
    await detail.getByRole("button", { name: "Resume", exact: true }).locator("xpath=..").hover();
    await expect.poll(() => carol.getByRole("tooltip").first().textContent(), PATIENCE).toMatch(/operator paused/);

    await detail.getByRole("button", { name: "Pause", exact: true }).click();
    await expect.poll(() => detail.getByTestId("run-status").textContent(), PATIENCE).toBe("paused");
    await expect.poll(async () => (await control(carol, "Resume")).enabled, PATIENCE).toBe(true);
    expect((await control(carol, "Pause")).why).toMatch(/only while the run is running/);
    await detail.getByRole("button", { name: "Resume", exact: true }).click();
    await expect.poll(() => detail.getByTestId("run-status").textContent(), { timeout: 40_000 }).toBe("completed");

    // Finished: nothing applies.
    await expect.poll(async () => (await control(carol, "Cancel (cascade)")).why, PATIENCE).toMatch(/has ended \(completed\)/);
    expect((await control(carol, "Pause")).enabled).toBe(false);
    expect((await control(carol, "Inject context")).enabled).toBe(false);
    await expect.poll(() => detail.getByTestId("live-tail").textContent(), PATIENCE).toBe("Ended");

    // A message's payload opens from the timeline; the steering appears too; token usage shows.
    const said = detail.getByTestId("timeline-entry").filter({ hasText: "Assistant said" }).last();
    // "Ended" comes from the run's record; the feed may still be delivering its last events.
    await expect.poll(() => said.locator("summary").innerText(), PATIENCE).toContain("“Done counting to 10.”");
    await said.locator("summary").click();
    await expect.poll(() => said.getByTestId("payload").textContent(), PATIENCE).toContain("Done counting to 10.");
    expect(await detail.getByTestId("timeline").textContent()).toMatch(/Paused by carol/i);
    expect(await detail.getByTestId("timeline").textContent()).toMatch(/Resumed by carol/i);
    expect(await detail.getByTestId("timeline").textContent()).toContain("Held until an operator resumes it");
    // Lines read as words, never as the log's event names.
    for (const summary of await detail.locator('[data-testid="timeline-entry"] > :is(span, details > summary)').allInnerTexts())
      expect(summary).not.toMatch(/\b(text|tool|run|pause|steer|snapshot)\.[a-z_]+\b|[A-Z]+_[A-Z_]+/);
    // Why a control is off is also written on the card, readable without hovering.
    expect(await detail.getByTestId("steer-hint").textContent()).toMatch(/has ended/);
    expect(await detail.getByTestId("run-tokens").textContent()).toMatch(/\d+ in · \d+ out/);
    // Times are relative to the run's start.
    expect(await detail.getByTestId("timeline").textContent()).toMatch(/#1 · \+\d/);
  }, 90_000);

  for (const [size, viewport] of Object.entries(SIZES))
    for (const scheme of ["light", "dark"] as const)
      it(`is accessible and fits at ${size} size, ${scheme}`, async () => {
        fs.mkdirSync(SHOTS, { recursive: true });
        const page = await (await browser.newContext({ viewport, colorScheme: scheme })).newPage();
        await signInAs(page, server.url, "carol@acme.test");
        await page.goto(`${server.url}/console`);
        const rows = page.getByTestId("run-row");
        await expect.poll(() => rows.count(), PATIENCE).toBeGreaterThan(0);
        await expectAccessible(page, `console (${size}, ${scheme})`);
        expect((await horizontalOverflow(page)).scrollWidth).toBeLessThanOrEqual(viewport.width);
        await page.screenshot({ path: path.join(SHOTS, `console-${size}-${scheme}.png`) });
        const runId = (await page.locator('[data-testid="run-row"][data-status="completed"]').first().getAttribute("data-run-id"))!;
        await page.goto(`${server.url}/console/runs/${runId}`);
        const detail = page.getByTestId("run-detail");
        await expect.poll(() => detail.getByTestId("timeline").textContent(), PATIENCE).toContain("#");
        const entry = detail.locator('[data-testid="timeline-entry"]:has(details)').first();
        await entry.locator("summary").click();
        await entry.getByTestId("payload").waitFor(PATIENCE);
        await expectAccessible(page, `console run page (${size}, ${scheme})`);
        expect((await horizontalOverflow(page)).scrollWidth).toBeLessThanOrEqual(viewport.width);
        await page.screenshot({ path: path.join(SHOTS, `console-run-${size}-${scheme}.png`), fullPage: true });
        await page.context().close();
      });
});
