import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";
import { startServer, type RunningServer } from "../helpers/server";

const PATIENCE = { timeout: 30_000 };

describe("the inbox across a server restart", () => {
  const browser = useBrowser();

  it("says Reconnecting while the server is away, reloads when it is back, and shows the lost request as gone", async () => {
    const first = await startServer({ HARBOR_STREAM_CHUNK_MS: "0" }, "e2e-inbox-restart");
    const port = new URL(first.url).port;
    let second: RunningServer | undefined;
    try {
      const alice = await (await browser.newContext()).newPage();
      await signInAs(alice, first.url, "alice@acme.test");
      await say(alice, "transfer 25 EUR to RESTART-1");
      await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
      await alice.context().close();

      const bob = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      await signInAs(bob, first.url, "bob@acme.test");
      await bob.goto(`${first.url}/approvals`);
      const row = bob.getByTestId("inbox-row").filter({ hasText: "RESTART-1" });
      await expect.poll(() => row.count(), PATIENCE).toBe(1);
      await row.click();
      const detail = bob.getByTestId("inbox-detail");
      await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("pending");
      const live = bob.getByTitle("Updates arrive as they happen");
      await expect.poll(() => live.textContent(), PATIENCE).toBe("Live");

      await first.stop();
      // While the server is away, the inbox does not claim to be live.
      await expect.poll(() => live.textContent(), PATIENCE).toMatch(/Reconnecting/);
      await screenshot(bob, "inbox-restart-away-desktop");

      // Back on the same port and data: the feed reconnects and the lists reload.
      second = await startServer({ HARBOR_DATA_DIR: first.dataDir, HARBOR_STREAM_CHUNK_MS: "0", PORT: port }, "e2e-inbox-restarted");
      await expect.poll(() => live.textContent(), { timeout: 60_000 }).toBe("Live");
      await expect.poll(() => bob.getByText("Could not load the requests").count(), PATIENCE).toBe(0);
      // The request did not survive the restart: its detail says so, and offers no Approve.
      await expect.poll(() => detail.getAttribute("data-status"), PATIENCE).toBe("lost");
      expect(await detail.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0);
      expect(await row.getAttribute("data-status")).toBe("lost");
      await screenshot(bob, "inbox-restart-back-desktop");
      await bob.context().close();
    } finally {
      await first.stop();
      await second?.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      if (second) fs.rmSync(second.dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
