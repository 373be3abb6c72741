import type { Page } from "playwright-core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };

/** The newest top-level run still running: alice's, since the journeys here run one at a time. */
async function newestRunningRun(carol: Page): Promise<string> {
  const row = carol.locator('[data-testid="run-row"][data-status="running"][data-parent-run-id=""]').first();
  await expect.poll(() => row.count(), PATIENCE).toBe(1);
  return (await row.getAttribute("data-run-id"))!;
}

describe("the operator console in Chromium", () => {
  const browser = useBrowser();
  let carol: Page;

  beforeAll(async () => {
    carol = await (await browser.newContext()).newPage();
    await signInAs(carol, server.url, "carol@acme.test");
  });

  it("carol pauses alice's counting run, alice's chat shows it paused, carol resumes it and it completes", async () => {
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, "count slowly to 8");
    await expect.poll(() => alice.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThanOrEqual(2);

    await carol.getByRole("link", { name: "Console" }).click();
    await carol.waitForURL(/\/console$/);
    const row = carol.locator(`[data-testid="run-row"][data-run-id="${await newestRunningRun(carol)}"]`);
    await row.click();
    const detail = carol.getByTestId("run-detail");
    await detail.getByRole("button", { name: "Pause", exact: true }).click();
    await expect.poll(() => row.getAttribute("data-status"), PATIENCE).toBe("paused");
    await expect.poll(() => alice.getByTestId("operator-pause").count(), PATIENCE).toBe(1);
    expect(await alice.getByLabel("Message").isDisabled()).toBe(true);
    await expect.poll(() => detail.getByTestId("timeline").textContent(), PATIENCE).toMatch(/Paused by carol/i);
    await screenshot(carol, "console-paused");
    await screenshot(alice, "chat-operator-paused");

    await detail.getByRole("button", { name: "Resume", exact: true }).click();
    await expect.poll(() => alice.getByTestId("messages").textContent(), PATIENCE).toContain("Done counting to 8.");
    await expect.poll(() => alice.getByTestId("operator-pause").count(), PATIENCE).toBe(0);
    await expect.poll(() => row.getAttribute("data-status"), PATIENCE).toBe("completed");
    await screenshot(alice, "chat-operator-resumed");
    await alice.context().close();
  });

  it("carol cancels a run with helpers and every helper ends cancelled", async () => {
    const alice = await (await browser.newContext()).newPage();
    await signInAs(alice, server.url, "alice@acme.test");
    await say(alice, "count slowly to 60 with helpers");
    await expect.poll(() => alice.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThanOrEqual(1);
    await carol.goto(`${server.url}/console`);
    const runId = await newestRunningRun(carol);
    const row = carol.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    const helpers = carol.locator(`[data-testid="run-row"][data-parent-run-id="${runId}"]`);
    await expect.poll(() => helpers.count(), PATIENCE).toBe(2);
    await row.click();
    const detail = carol.getByTestId("run-detail");
    await detail.getByRole("button", { name: "Cancel (cascade)" }).click();
    await detail.getByRole("button", { name: "Confirm cancel with helpers" }).click();
    await expect.poll(() => row.getAttribute("data-status"), PATIENCE).toBe("cancelled");
    await expect
      .poll(async () => (await helpers.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status")))).join(","), PATIENCE)
      .toBe("cancelled,cancelled");
    await screenshot(carol, "console-cancelled");
    await alice.context().close();
  });

  it("keeps members out of /console", async () => {
    const bob = await (await browser.newContext()).newPage();
    await signInAs(bob, server.url, "bob@acme.test");
    expect(await bob.getByRole("link", { name: "Console" }).count()).toBe(0);
    await bob.goto(`${server.url}/console`);
    await expect.poll(() => bob.getByTestId("console-forbidden").textContent(), PATIENCE).toContain("Admins only");
    await bob.context().close();
  });
});
