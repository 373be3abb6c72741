/**
 * Tool-side OAuth over the wire, with the server's embedded identity provider: the AG-UI interrupt
 * carries the consent URL; a person signs in and consents at the provider; the callback page
 * continues the run, which reads the calendar; refused callbacks change nothing.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  AGUI_CLIENTS,
  cancelledEnding,
  customEvents,
  interruptsOf,
  runError,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
} from "../helpers/agui";
import { consentAt } from "../helpers/consent";
import { signInAll, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

const PASSWORD = "harbor";

describe.each(inject("servers"))("tool-side OAuth on the $name server", (server) => {
  const callbackPrefix = `${server.url}/api/oauth/callback/calendar`;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    const emails = ["alice@acme.test", "bob@acme.test", "carol@acme.test", "mallory@globex.test"];
    const signed = await signInAll(server.url, emails);
    emails.forEach((email, i) => (cookies[email] = signed[i]!));
  });
  const as = (email: string): Auth => ({ cookie: cookies[email]! });

  /** Starts from no calendar connection, whatever earlier tests left. */
  async function disconnected(email: string) {
    const list = await trpcQuery<{ provider: string }[]>(server.url, as(email), "connections.list");
    if (list.data?.some((c) => c.provider === "calendar"))
      await trpcMutation(server.url, as(email), "connections.disconnect", { provider: "calendar" });
  }

  async function checkCalendar(client: AguiClient, email: string) {
    const threadId = randomUUID();
    const turn = await runTurn(client, { baseUrl: server.url, auth: as(email), threadId, messages: [userMessage("check my calendar")] });
    return { threadId, turn, consent: interruptsOf(turn.events)[0] };
  }

  /** The owner's browser opens the pause's consent URL (Harbor's): it keeps a nonce cookie and is sent on to the provider. */
  async function connect(email: string, consentUrl: string) {
    const res = await fetch(consentUrl, { headers: { cookie: cookies[email]! }, redirect: "manual" });
    expect(res.status).toBe(302);
    const nonce = res.headers
      .getSetCookie()
      .find((c) => c.startsWith("harbor_oauth_"))!
      .split(";")[0]!;
    return { providerUrl: res.headers.get("location")!, nonce };
  }

  /** The provider's redirect arriving in a browser signed in as `email`, holding `nonce` (or not). */
  const callback = (url: URL, email?: string, nonce?: string) =>
    fetch(url, { headers: email ? { cookie: [cookies[email], nonce].filter(Boolean).join("; ") } : {}, redirect: "manual" });

  async function reply(email: string, threadId: string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const thread = await trpcQuery<{ messages: { role: string; content: string }[] }>(server.url, as(email), "threads.get", { threadId });
      const found = thread.data?.messages.find((m) => m.role === "assistant" && pattern.test(m.content));
      if (found) return found.content;
      if (Date.now() > deadline) throw new Error(`no reply matching ${pattern} in ${JSON.stringify(thread.data?.messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    const email = client.version === "1.0.0" ? "alice@acme.test" : "carol@acme.test";
    const name = email.startsWith("alice") ? "Alice" : "Carol";

    it("interrupts with the consent URL; the callback continues the run, which reads the owner's calendar", async () => {
      await disconnected(email);
      const { threadId, turn, consent } = await checkCalendar(client, email);
      expect(consent).toMatchObject({
        reason: "oauth",
        message: expect.stringContaining("Connect your demo calendar account"),
        metadata: {
          harbor: {
            pauseReason: "oauth",
            kind: "oauth",
            provider: "calendar",
            authorizationUrl: `${server.url}/api/oauth/connect/${consent!.id}`,
          },
        },
      });
      expect(consent).not.toHaveProperty("responseSchema");
      expect(customEvents(turn.events, "pause.requested")[0]).toMatchObject({ pauseId: consent!.id, reason: "oauth", kind: "oauth" });
      const browser = await connect(email, consent!.metadata!.harbor!.authorizationUrl!);
      const providerUrl = new URL(browser.providerUrl);
      expect(providerUrl.searchParams.get("redirect_uri")).toBe(callbackPrefix);
      expect(providerUrl.searchParams.get("code_challenge_method")).toBe("S256");

      const callbackUrl = await consentAt(providerUrl.href, { email, password: PASSWORD }, { callbackPrefix });
      const page = await callback(callbackUrl, email, browser.nonce);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("demo calendar connected");
      const answer = await reply(email, threadId, /^Today \(/);
      expect(answer).toMatch(/you have 3 events/);
      expect(answer).toContain(`Lunch with ${name}`);

      const replayed = await callback(callbackUrl, email, browser.nonce);
      expect(replayed.status).toBe(409);
      expect(await replayed.text()).toContain("This link was already used");

      // Connected: the next ask reads the calendar at once.
      const again = await checkCalendar(client, email);
      expect(again.consent).toBeUndefined();
      expect(streamedText(again.turn.events)).toContain(`Lunch with ${name}`);
    });
  });

  const client = AGUI_CLIENTS[0]!;

  it("refuses a consent or callback without a session, for another user or browser, or with a forged state, and changes nothing", async () => {
    await disconnected("bob@acme.test");
    const { threadId, consent } = await checkCalendar(client, "bob@acme.test");
    const consentUrl = consent!.metadata!.harbor!.authorizationUrl!;
    const notSignedIn = await fetch(consentUrl, { redirect: "manual" });
    expect(notSignedIn.status).toBe(401);
    expect(await notSignedIn.text()).toContain("Sign in to finish connecting");
    const notTheOwner = await fetch(consentUrl, { headers: { cookie: cookies["alice@acme.test"]! }, redirect: "manual" });
    expect(notTheOwner.status).toBe(403);
    expect(notTheOwner.headers.get("set-cookie")).toBeNull();
    const browser = await connect("bob@acme.test", consentUrl);
    const callbackUrl = await consentAt(browser.providerUrl, { email: "bob@acme.test", password: PASSWORD }, { callbackPrefix });

    const anonymous = await callback(callbackUrl);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("Sign in to finish connecting");
    const refused = await callback(callbackUrl, "alice@acme.test", browser.nonce);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("This connection is not yours");
    const otherTenant = await callback(callbackUrl, "mallory@globex.test", browser.nonce);
    expect(otherTenant.status).toBe(404);
    // Bob's own session, but not the browser that started the consent (a link forwarded to him).
    const otherBrowser = await callback(callbackUrl, "bob@acme.test");
    expect(otherBrowser.status).toBe(403);
    expect(await otherBrowser.text()).toContain("not started from this browser");
    const forged = new URL(callbackUrl);
    forged.searchParams.set("state", `${forged.searchParams.get("state")!.slice(0, -2)}xx`);
    const forgedPage = await callback(forged, "bob@acme.test", browser.nonce);
    expect(forgedPage.status).toBe(400);
    expect(await forgedPage.text()).toContain("This link is not valid");
    const unknown = await callback(new URL(`${server.url}/api/oauth/callback/calendar?code=abc&state=not-a-jwt`), "bob@acme.test");
    expect(unknown.status).toBe(400);

    // Nothing changed: still waiting, and new input is refused until it is answered.
    const stored = await trpcQuery<{ status: string; pauseReason: string; detail: { provider: string } }>(
      server.url,
      as("bob@acme.test"),
      "interactions.get",
      { interactionId: consent!.id },
    );
    expect(stored.data).toMatchObject({ status: "pending", pauseReason: "oauth", detail: { provider: "calendar" } });
    const blocked = await runTurn(client, {
      baseUrl: server.url,
      auth: as("bob@acme.test"),
      threadId,
      messages: [userMessage("hello")],
      ends: "RUN_ERROR",
    });
    expect(runError(blocked.events)).toMatchObject({ code: "PENDING_INTERACTION" });
    // Only the callback resolves it; the owner's own resume[] may only cancel.
    const answered = await runTurn(client, {
      baseUrl: server.url,
      auth: as("bob@acme.test"),
      threadId,
      messages: [],
      resume: [{ interruptId: consent!.id, status: "resolved", payload: {} }],
      ends: "RUN_ERROR",
    });
    expect(runError(answered.events)).toMatchObject({ code: "FORBIDDEN" });

    const genuine = await callback(callbackUrl, "bob@acme.test", browser.nonce);
    expect(genuine.status).toBe(200);
    await reply("bob@acme.test", threadId, /^Today \(/);
  });

  it("ends the run with a refusal when the owner cancels the consent", async () => {
    await disconnected("mallory@globex.test");
    const { threadId, consent } = await checkCalendar(client, "mallory@globex.test");
    const cancelled = await runTurn(client, {
      baseUrl: server.url,
      auth: as("mallory@globex.test"),
      threadId,
      messages: [],
      resume: [{ interruptId: consent!.id, status: "cancelled" }],
    });
    expect(streamedText(cancelled.events)).toBe("I did not read your calendar: the connection was cancelled.");
    expect(cancelled.events.at(-1)).toMatchObject(cancelledEnding(client));
  });

  it("lists the caller's connections without secrets and disconnects them, revoking the grant", async () => {
    const list = await trpcQuery<{ provider: string; kind: string; scopes: string[] }[]>(
      server.url,
      as("bob@acme.test"),
      "connections.list",
    );
    expect(list.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ provider: "calendar", kind: "oauth", scopes: expect.arrayContaining(["calendar.read"]) }),
      ]),
    );
    expect(JSON.stringify(list.data)).not.toMatch(/token|sealed/i);
    const others = await trpcQuery<{ provider: string }[]>(server.url, as("mallory@globex.test"), "connections.list");
    expect(others.data?.some((c) => c.provider === "calendar")).toBe(false);
    const gone = await trpcMutation<{ revoked: boolean }>(server.url, as("bob@acme.test"), "connections.disconnect", {
      provider: "calendar",
    });
    expect(gone.data).toEqual({ revoked: true });
    const again = await trpcMutation(server.url, as("bob@acme.test"), "connections.disconnect", { provider: "calendar" });
    expect(again).toMatchObject({ status: 404, error: { data: { harborCode: "NOT_FOUND" } } });
    const { consent } = await checkCalendar(client, "bob@acme.test");
    expect(consent).toMatchObject({ reason: "oauth" });
  });
});
