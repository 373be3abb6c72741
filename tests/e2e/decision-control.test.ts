import { randomUUID } from "node:crypto";
import type { BrowserContextOptions, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 20_000 };
const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
} as const satisfies Record<string, BrowserContextOptions>;

interface Gate {
  interactionId: string;
  runId: string;
  status: string;
  message: string | null;
}

async function gates(page: Page): Promise<Gate[]> {
  const input = encodeURIComponent(JSON.stringify({ kind: "approval" }));
  const body = (await (await page.request.get(`${server.url}/api/trpc/interactions.list?input=${input}`)).json()) as {
    result: { data: Gate[] };
  };
  return body.result.data;
}

/** Alice asks for a 2,500 EUR transfer (one approver decides it); returns its gate as carol sees it. */
async function aliceAsksForLargeTransfer(alice: Page, carol: Page, account: string): Promise<Gate> {
  await say(alice, `transfer 2500 EUR to ${account}`);
  await expect.poll(() => alice.getByTestId("approval-card").getAttribute("data-status"), PATIENCE).toBe("pending");
  let gate: Gate | undefined;
  await expect
    .poll(async () => {
      gate = (await gates(carol)).find((g) => g.message?.endsWith(` to ${account}`));
      return gate?.status;
    }, PATIENCE)
    .toBe("pending");
  return gate!;
}

describe("one decision control wherever a gate is decided", () => {
  const browser = useBrowser();

  it.each(Object.keys(SIZES) as (keyof typeof SIZES)[])(
    "the console asks for the typed amount before approving a 2,500 EUR transfer (%s)",
    async (size) => {
      const account = `DC-${size}-${randomUUID().slice(0, 6).toUpperCase()}`;
      const alice = await (await browser.newContext()).newPage();
      await signInAs(alice, server.url, "alice@acme.test");
      const carol = await (await browser.newContext(SIZES[size])).newPage();
      await signInAs(carol, server.url, "carol@acme.test");
      const gate = await aliceAsksForLargeTransfer(alice, carol, account);

      await carol.goto(`${server.url}/console/runs/${gate.runId}`);
      const detail = carol.getByTestId("run-detail");
      await expect.poll(() => detail.getByTestId("run-status").textContent(), PATIENCE).toBe("paused");
      // The console's approve button (its name was "Approve gate" before one control served every place).
      const approve = detail.getByRole("button", { name: /^Approve( gate)?$/ });
      await expect.poll(() => approve.isEnabled(), PATIENCE).toBe(true);
      await approve.click();

      // Nothing is approved yet: the amount must be typed first.
      const typed = detail.getByLabel("Type the amount or approve to confirm");
      await expect.poll(() => typed.count(), PATIENCE).toBe(1);
      expect((await gates(carol)).find((g) => g.interactionId === gate.interactionId)?.status).toBe("pending");
      const confirm = detail.getByRole("button", { name: "Confirm approve" });
      expect(await confirm.isDisabled()).toBe(true);
      await typed.fill("2500");
      await screenshot(carol, `decision-control-console-${size}`);
      await confirm.click();
      await expect
        .poll(async () => (await gates(carol)).find((g) => g.interactionId === gate.interactionId)?.status, PATIENCE)
        .toBe("resolved");
      await expect.poll(() => alice.getByTestId("approval-card").last().getAttribute("data-status"), PATIENCE).toBe("resolved");
      await alice.context().close();
      await carol.context().close();
    },
    90_000,
  );
});
