import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
const PATIENCE = { timeout: 15_000 };

describe("browser tools in Chromium", () => {
  const browser = useBrowser();

  it("alice asks her time zone and the browser answers it, without a click", async () => {
    const context = await browser.newContext({ timezoneId: "Pacific/Auckland" });
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    const box = page.getByLabel("Message");
    await box.fill("what is my time zone?");
    await box.press("Enter");
    await expect
      .poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Your time zone is Pacific/Auckland.");
    const note = page.getByTestId("tool-note");
    await expect.poll(() => note.getAttribute("data-status"), PATIENCE).toBe("done");
    expect(await note.textContent()).toContain("Pacific/Auckland");
    await expect.poll(() => box.isDisabled(), PATIENCE).toBe(false);
    await screenshot(page, "chat-browser-tool");
    await context.close();
  });

  it("alice connects an API key through the private form, which clears itself and never shows the key", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    const box = page.getByLabel("Message");
    await box.fill("connect my api key");
    await box.press("Enter");
    const form = page.getByTestId("private-form");
    await expect.poll(() => form.getAttribute("data-status"), PATIENCE).toBe("pending");
    const field = form.getByLabel("API key");
    expect(await field.getAttribute("type")).toBe("password");
    await screenshot(page, "chat-private-form");
    const secret = `sk-e2e-${Date.now()}`;
    await field.fill(secret);
    await form.getByRole("button", { name: "Send privately" }).click();
    await expect.poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE).toContain("API key connected.");
    await expect.poll(() => form.getAttribute("data-status"), PATIENCE).toBe("resolved");
    expect(await page.locator("body").textContent()).not.toContain(secret);
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, "chat-private-form-sent");
    await context.close();
  });

  it("alice starts research and watches the progress bar until the report appears", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    const box = page.getByLabel("Message");
    await box.fill("research coral reefs");
    await box.press("Enter");
    const status = page.getByTestId("external-wait");
    await expect.poll(() => status.getAttribute("data-status"), PATIENCE).toBe("in_progress");
    // The conversation stays open while the work goes on.
    await expect.poll(() => box.isDisabled(), PATIENCE).toBe(false);
    const bar = status.getByRole("progressbar");
    await expect.poll(async () => Number(await bar.getAttribute("aria-valuenow")), PATIENCE).toBeGreaterThan(0);
    await screenshot(page, "chat-research-progress");
    await expect
      .poll(() => page.getByTestId("message-assistant").last().textContent(), PATIENCE)
      .toContain("Research on coral reefs is done.");
    await expect.poll(() => status.getAttribute("data-status"), PATIENCE).toBe("completed");
    await screenshot(page, "chat-research-done");
    await context.close();
  });

  it("alice's research of nothing fails, and the conversation says so instead of a finished bar", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, server.url, "alice@acme.test");
    await say(page, "research nothing");
    const status = page.getByTestId("external-wait");
    await expect.poll(() => status.getAttribute("data-status"), PATIENCE).toBe("failed");
    // The result appended to the thread must not turn the failure into "done".
    await expect.poll(() => page.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThan(0);
    await page.waitForTimeout(1_000);
    expect(await status.getAttribute("data-status")).toBe("failed");
    expect(await status.textContent()).toContain("Failed");
    expect(await status.textContent()).toContain("No sources found");
    expect(await status.textContent()).not.toContain("done");
    const bar = status.getByRole("progressbar");
    expect(await bar.getAttribute("aria-valuenow")).not.toBe("100");
    expect(await status.locator(".progress-bar").getAttribute("class")).toContain("failed");
    await screenshot(page, "chat-research-failed");
    // A reload shows the same, from the server's record.
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await page.reload();
    await expect.poll(() => page.getByTestId("external-wait").getAttribute("data-status"), PATIENCE).toBe("failed");
    expect(await page.getByTestId("external-wait").textContent()).toContain("Failed");
    await context.close();
  });
});
