import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { say, screenshot, signInAs, useBrowser } from "../helpers/browser";

const server = inject("servers")[0]!;
/** The UI streams at its real pace; give polls time for a whole reply and a navigation. */
const PATIENCE = { timeout: 15_000 };

describe("the chat journey in Chromium", () => {
  const browser = useBrowser();
  let alicePage: Page;
  let aliceThreadUrl: string;

  it("refuses a wrong password with a clear message", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/chat`);
    await page.waitForURL(/\/signin\?callbackUrl=/);
    await page.getByLabel("Email").fill("alice@acme.test");
    await page.getByLabel("Password").fill("not-her-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.locator("form [role=alert]").textContent(), PATIENCE).toContain("Wrong email or password");
    expect(await page.getByLabel("Email").inputValue()).toBe("alice@acme.test");
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await screenshot(page, "signin-error");
    await page.context().close();
  });

  it("alice signs in, starts a thread, and watches the reply stream in", async () => {
    alicePage = await (await browser.newContext()).newPage();
    await signInAs(alicePage, server.url, "alice@acme.test");
    await expect.poll(() => alicePage.getByTestId("who").textContent(), PATIENCE).toContain("alice@acme.test");
    expect(await alicePage.getByTestId("role").textContent()).toBe("member");
    await screenshot(alicePage, "chat-empty");

    const box = alicePage.getByLabel("Message");
    await box.fill("Hello concierge");
    await box.press("Enter");

    // While streaming, the bubble grows, Stop is offered, and the composer stays free (the thread's
    // double-texting policy decides what a message sent now does).
    await alicePage.locator(".message.streaming").waitFor({ state: "visible" });
    expect(await box.isDisabled()).toBe(false);
    expect(await alicePage.getByTestId("stop-run").count()).toBe(1);
    const partial = (await alicePage.locator(".message.streaming .message-body").textContent()) ?? "";
    await screenshot(alicePage, "chat-streaming");

    const reply = alicePage.getByTestId("message-assistant").last();
    await expect.poll(() => reply.textContent(), PATIENCE).toContain("count slowly to <n>");
    expect(((await reply.textContent()) ?? "").length).toBeGreaterThan(partial.length);
    await expect.poll(() => box.isDisabled(), PATIENCE).toBe(false);
    await expect.poll(() => alicePage.url(), PATIENCE).toMatch(/\/chat\/[0-9a-f-]{36}$/);
    aliceThreadUrl = alicePage.url();
    await expect.poll(() => alicePage.getByTestId("thread-list").textContent(), PATIENCE).toContain("Hello concierge");
    await screenshot(alicePage, "chat-replied");
  });

  it("starts a fresh conversation from the list, and both stay listed", async () => {
    await alicePage.getByTestId("new-thread").click();
    await alicePage.waitForURL(/\/chat$/);
    await expect.poll(() => alicePage.getByTestId("messages").textContent(), PATIENCE).toContain("How can the concierge help?");
    const box = alicePage.getByLabel("Message");
    await box.fill("A second topic");
    await box.press("Enter");
    await expect.poll(() => alicePage.url(), PATIENCE).toMatch(/\/chat\/[0-9a-f-]{36}$/);
    expect(alicePage.url()).not.toBe(aliceThreadUrl);
    await expect.poll(() => alicePage.locator(".thread.active").textContent(), PATIENCE).toContain("A second topic");
    // Both stay listed (other journeys may have added alice's threads on this server too).
    const listed = (await alicePage.getByTestId("thread-list").textContent()) ?? "";
    expect(listed).toContain("A second topic");
    expect(listed).toContain("Hello concierge");
    await screenshot(alicePage, "chat-two-threads");
    await alicePage.goto(aliceThreadUrl);
  });

  it("queues a message sent while a reply works, and answers it after", async () => {
    const page = await (await browser.newContext()).newPage();
    await signInAs(page, server.url, "alice@acme.test");
    await say(page, "count slowly to 6");
    await expect.poll(() => page.getByTestId("message-assistant").count(), PATIENCE).toBeGreaterThan(0);
    await say(page, "hello again");
    // The concierge's policy is `enqueue`: the message waits its turn, and says so.
    await expect.poll(() => page.getByTestId("run-queued").textContent(), PATIENCE).toMatch(/Queued — \d+ ahead/);
    expect(await page.getByTestId("message-user").last().textContent()).toContain("hello again");
    await screenshot(page, "chat-queued-while-working");
    await expect.poll(() => page.getByTestId("messages").textContent(), PATIENCE).toContain("Done counting to 6.");
    await expect.poll(() => page.getByTestId("run-queued").count(), PATIENCE).toBe(0);
    const users = await page.getByTestId("message-user").allTextContents();
    expect(users.filter((t) => t.includes("hello again"))).toHaveLength(1);
    await page.context().close();
  });

  it("still shows the conversation after a reload", async () => {
    await alicePage.reload();
    const messages = alicePage.getByTestId("messages");
    await expect.poll(() => messages.textContent(), PATIENCE).toContain("Hello concierge");
    expect(await alicePage.getByTestId("message-assistant").count()).toBe(1);
    expect(await alicePage.getByTestId("message-assistant").textContent()).toContain("Harbor concierge");
  });

  it("mallory, of another tenant, cannot open alice's thread URL", async () => {
    const page = await (await browser.newContext()).newPage();
    await signInAs(page, server.url, "mallory@globex.test");
    const response = await page.goto(aliceThreadUrl);
    // A real 404: the page decides before anything streams (no loading boundary above it).
    expect(response?.status()).toBe(404);
    expect(await page.locator("body").textContent()).not.toContain("Hello concierge");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Not found");
    await screenshot(page, "mallory-not-found");
    await page.context().close();
  });

  it("shows an error, not a hang, when a run fails: here the session ended in another tab", async () => {
    await alicePage.context().clearCookies();
    const box = alicePage.getByLabel("Message");
    await box.fill("are you still there?");
    await box.press("Enter");
    await expect.poll(() => alicePage.getByTestId("run-error").textContent(), PATIENCE).toContain("Your session has ended");
    await expect.poll(() => box.isDisabled(), PATIENCE).toBe(false);
    // Nothing was stored, so the message is back in the composer rather than in the conversation.
    expect(await box.inputValue()).toBe("are you still there?");
    expect(await alicePage.getByTestId("messages").textContent()).not.toContain("are you still there?");
    await screenshot(alicePage, "chat-run-error");
    await alicePage.getByRole("link", { name: "Sign in again" }).click();
    await alicePage.waitForURL(/\/signin\?callbackUrl=/);
    await alicePage.getByLabel("Email").fill("alice@acme.test");
    await alicePage.getByLabel("Password").fill("harbor");
    await alicePage.getByRole("button", { name: "Sign in", exact: true }).click();
    await alicePage.waitForURL(aliceThreadUrl);
  });

  it("catches up from the server when a stream is cut before its end", async () => {
    // The network drops the connection mid-reply: the real server answers in full, the browser
    // receives only the first half of the stream. The page then attaches to the thread: its
    // record (and the run's log) bring the rest, without a reload.
    await alicePage.route("**/api/agents/concierge/runs", async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      await route.fulfill({ response, body: body.slice(0, body.indexOf('"TEXT_MESSAGE_END"')).replace(/data: [^\n]*$/, "") });
    });
    const box = alicePage.getByLabel("Message");
    await box.fill("tell me again");
    await box.press("Enter");
    await expect.poll(() => alicePage.getByTestId("message-assistant").count(), PATIENCE).toBe(2);
    // The run had started, so the message stays in the conversation rather than in the composer.
    expect(await box.inputValue()).toBe("");
    expect(await alicePage.getByTestId("messages").textContent()).toContain("tell me again");
    expect(await alicePage.getByTestId("run-error").count()).toBe(0);
    await screenshot(alicePage, "chat-stream-cut");
    await alicePage.unroute("**/api/agents/concierge/runs");
  });

  it("signs out back to the sign-in page", async () => {
    await alicePage.getByRole("button", { name: "Sign out" }).click();
    await alicePage.waitForURL(/\/signin/);
    await alicePage.goto(aliceThreadUrl);
    await alicePage.waitForURL(/\/signin\?callbackUrl=/);
  });
});
