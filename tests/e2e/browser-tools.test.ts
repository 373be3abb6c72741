import { describe, expect, inject, it } from "vitest";
import { screenshot, signInAs, useBrowser } from "../helpers/browser";

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
});
