/**
 * The limits and protections (README, "Limits and protections") that a signed-in user (or a page on another site) runs
 * into: each answered with a clear 4xx, nothing changed, the server healthy afterwards.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, customEvents, interruptsOf, postRun, runInput, runTurn, userMessage } from "../helpers/agui";
import { authHeaders, readSse, runOnThread, signIn, signInAll, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";

/** Reads a stream until `text` has come, leaving it open. */
async function readUntil(res: Response, text: string): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${text}`);
    seen += value;
  }
  reader.releaseLock();
}

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe.each(inject("servers"))("limits and protections on the $name server", (server) => {
  let alice: Auth;
  let aliceToken: Auth;

  beforeAll(async () => {
    const [cookie] = await signInAll(server.url, ["alice@acme.test"]);
    alice = { cookie: cookie! };
    const created = await fetch(`${server.url}/api/trpc/tokens.create`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: cookie! },
      body: JSON.stringify({ name: "limits" }),
    });
    aliceToken = { bearer: ((await created.json()) as { result: { data: { token: string } } }).result.data.token };
  });

  const healthy = async () => expect((await fetch(`${server.url}/api/health`)).status).toBe(200);

  it("refuses JSON nested deeper than 64 levels with 400, on AG-UI and tRPC, and stays healthy", async () => {
    const body = `{"threadId":"${randomUUID()}","runId":"r","messages":[],"tools":[],"context":[],"state":${nested(5_000)}}`;
    const agui = await postRun(server.url, alice, body);
    expect(agui.status).toBe(400);
    expect(await agui.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "body" } });
    const mutation = await fetch(`${server.url}/api/trpc/threads.create`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders(alice) },
      body: `{"title":${nested(5_000)}}`,
    });
    expect(mutation.status).toBe(400);
    const query = await fetch(`${server.url}/api/trpc/threads.get?input=${encodeURIComponent(`{"threadId":${nested(100)}}`)}`, {
      headers: authHeaders(alice),
    });
    expect(query.status).toBe(400);
    await healthy();
  });

  it("refuses a user message over HARBOR_MAX_MESSAGE_CHARS (32,000) with 400 naming it, storing nothing", async () => {
    const threadId = randomUUID();
    const res = await postRun(server.url, alice, runInput(threadId, [userMessage("fine"), userMessage("x".repeat(32_001))]));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "messages[1].content" } });
    expect((await trpcQuery(server.url, alice, "threads.get", { threadId })).error?.data.code).toBe("NOT_FOUND");
  });

  it("runs at most 10 of one member's runs at once (HARBOR_MAX_ACTIVE_RUNS_PER_USER): the rest queue, and another tenant's user is answered at once", async () => {
    const [malloryCookie] = await signInAll(server.url, ["mallory@globex.test"]);
    const queued = new Set<number>();
    const alices = Array.from({ length: 14 }, async (_, i) => {
      const res = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("count slowly to 4")]));
      const frames = await readSse(res, (frame) => {
        const event = JSON.parse(frame.data) as { type: string; name?: string };
        if (event.type === "CUSTOM" && event.name === "run.queued") queued.add(i);
        return event.type === "RUN_FINISHED" || event.type === "RUN_ERROR";
      });
      return (JSON.parse(frames.at(-1)!.data) as { type: string }).type;
    });
    await expect.poll(() => queued.size, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    const mallorys = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: { cookie: malloryCookie! },
      threadId: randomUUID(),
      messages: [userMessage("hello")],
    });
    expect(customEvents(mallorys.events, "run.queued")).toEqual([]);
    expect(await Promise.all(alices)).toEqual(alices.map(() => "RUN_FINISHED"));
  });

  it("holds at most 20 live feeds open per user (HARBOR_MAX_SUBSCRIPTIONS_PER_USER): the next is refused with TOO_MANY_REQUESTS until one closes; others are not affected", async () => {
    const threadId = randomUUID();
    const turn = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("send an email to feeds@example.com saying hi")],
    });
    expect(interruptsOf(turn.events)).toHaveLength(1);
    const runId = await runOnThread(server.url, alice, threadId, "paused");
    const feeds = Array.from({ length: 20 }, () => new AbortController());
    // A parked run's feed stays open, waiting for what comes next.
    const open = await Promise.all(feeds.map((c) => trpcSubscribe(server.url, alice, "runs.events", { runId }, c.signal)));
    // Each feed has read what the log holds (its slot is taken), and stays open.
    await Promise.all(open.map((res) => readUntil(res, '"run.paused"')));
    /** The code a feed ends with: tRPC answers a subscription's refusal as its stream's error. */
    const refusalOf = async (res: Response) => {
      const error = (await readSse(res, (f) => f.event !== "connected")).find((f) => f.event === "serialized-error");
      return error ? (JSON.parse(error.data) as { data: { code: string } }).data.code : undefined;
    };
    expect(await refusalOf(await trpcSubscribe(server.url, alice, "runs.events", { runId }))).toBe("TOO_MANY_REQUESTS");
    expect(await refusalOf(await trpcSubscribe(server.url, alice, "interactions.events", {}))).toBe("TOO_MANY_REQUESTS");
    const [malloryCookie] = await signInAll(server.url, ["mallory@globex.test"]);
    const mallorys = new AbortController();
    const malloryFeed = await trpcSubscribe(server.url, { cookie: malloryCookie! }, "interactions.events", {}, mallorys.signal);
    expect(await Promise.race([refusalOf(malloryFeed), new Promise((resolve) => setTimeout(() => resolve("open"), 500))])).toBe("open");
    mallorys.abort();

    feeds[0]!.abort();
    await expect
      .poll(async () => {
        const again = new AbortController();
        const res = await trpcSubscribe(server.url, alice, "runs.events", { runId }, again.signal);
        const frames = await readSse(res, (f) => f.event === "serialized-error" || f.data.includes('"run.paused"'));
        again.abort();
        return frames.some((f) => f.event === "serialized-error") ? "refused" : "open";
      })
      .toBe("open");
    for (const feed of feeds) feed.abort();
    await healthy();
  });

  it("refuses a batch of more than 10 calls with 400", async () => {
    const calls = (n: number) => Array.from({ length: n }, () => "me.get").join(",");
    const input = (n: number) => encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))));
    const ten = await fetch(`${server.url}/api/trpc/${calls(10)}?batch=1&input=${input(10)}`, { headers: authHeaders(alice) });
    expect(ten.status).toBe(200);
    const eleven = await fetch(`${server.url}/api/trpc/${calls(11)}?batch=1&input=${input(11)}`, { headers: authHeaders(alice) });
    expect(eleven.status).toBe(400);
  });

  it("refuses a NUL in any tRPC string with 400, and the request stays pending", async () => {
    const threadId = randomUUID();
    const turn = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("send an email to nul@example.com saying hi")],
    });
    const [gate] = interruptsOf(turn.events);
    const res = await fetch(`${server.url}/api/trpc/interactions.reject`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders(alice) },
      body: JSON.stringify({ interactionId: gate!.id, reason: "a\u0000b" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "reason" } });
    expect((await trpcQuery<{ status: string }>(server.url, alice, "interactions.get", { interactionId: gate!.id })).data?.status).toBe(
      "pending",
    );
    await healthy();
  });

  it("refuses a cookie-authenticated write from another site (Origin or Sec-Fetch-Site) with 403, changing nothing; bearer tokens are not affected", async () => {
    const before = ((await trpcQuery<unknown[]>(server.url, alice, "threads.list")).data ?? []).length;
    const forged = await fetch(`${server.url}/api/trpc/threads.create`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders(alice), origin: "https://evil.example" },
      body: JSON.stringify({ title: "from evil" }),
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
    const crossSite = await fetch(`${server.url}/api/agents/concierge/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders(alice), "sec-fetch-site": "cross-site" },
      body: JSON.stringify(runInput(randomUUID(), [userMessage("hello")])),
    });
    expect(crossSite.status).toBe(403);
    expect(((await trpcQuery<unknown[]>(server.url, alice, "threads.list")).data ?? []).length).toBe(before);

    const sameSite = await fetch(`${server.url}/api/trpc/threads.create`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders(alice), origin: server.url },
      body: JSON.stringify({ title: "from Harbor's own page" }),
    });
    expect(sameSite.status).toBe(200);
    const bearer = await fetch(`${server.url}/api/trpc/threads.create`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders(aliceToken), origin: "https://evil.example" },
      body: JSON.stringify({ title: "a program with a token" }),
    });
    expect(bearer.status).toBe(200);
  });

  it("gives API tokens an expiry: expiresInDays from 1 to 365 (default 90), answered as expiresAt", async () => {
    const create = (input: unknown) =>
      fetch(`${server.url}/api/trpc/tokens.create`, {
        method: "POST",
        headers: { "content-type": "application/json", ...authHeaders(alice) },
        body: JSON.stringify(input),
      });
    const month = (await (await create({ name: "month", expiresInDays: 30 })).json()) as { result: { data: { expiresAt: string } } };
    const days = (Date.parse(month.result.data.expiresAt) - Date.now()) / (24 * 3600_000);
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect((await create({ name: "forever", expiresInDays: 366 })).status).toBe(400);
  });

  it("ends the session on the server at sign-out: the old cookie gets 401 afterwards", async () => {
    const cookie = await signIn(server.url, "alice@acme.test");
    expect((await trpcQuery(server.url, { cookie }, "me.get")).status).toBe(200);
    const csrf = await fetch(`${server.url}/api/auth/csrf`, { headers: { cookie } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const out = await fetch(`${server.url}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: [cookie, csrfCookie].filter(Boolean).join("; ") },
      body: new URLSearchParams({ csrfToken }),
    });
    expect(out.status).toBeLessThan(400);
    // The browser dropped the cookie; a copy kept elsewhere must not work either.
    expect((await trpcQuery(server.url, { cookie }, "me.get")).status).toBe(401);
  });

  it("sends security headers with every page: no framing, no sniffing, a content security policy", async () => {
    for (const path of ["/signin", "/approvals", "/chat"]) {
      const res = await fetch(`${server.url}${path}`, { headers: authHeaders(alice), redirect: "manual" });
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
  });

  it("runs a page's scripts only with that response's nonce: no inline script without it, a fresh one each time", async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/signin`, { redirect: "manual" });
      const policy = res.headers.get("content-security-policy") ?? "";
      const scriptSrc = policy.split("; ").find((d) => d.startsWith("script-src ")) ?? "";
      expect(scriptSrc).not.toContain("unsafe-inline");
      const nonce = /'nonce-([A-Za-z0-9+/]{22}==)'/.exec(scriptSrc)?.[1];
      expect(nonce, scriptSrc).toBeDefined();
      expect(scriptSrc).toContain("'strict-dynamic'");
      // One policy, not a second one from elsewhere that would also have to allow each script.
      expect(policy.match(/script-src/g)).toHaveLength(1);
      const scripts = (await res.text()).match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      nonces.push(nonce!);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it("sends the API's answers a policy that allows nothing, and pages under /api the pages' policy", async () => {
    for (const path of ["/api/health", "/api/trpc/me.get"]) {
      const res = await fetch(`${server.url}${path}`, { headers: authHeaders(alice) });
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    // Auth.js's error page and a provider's callback are pages: their inline styles stay allowed.
    for (const path of ["/api/auth/error", "/api/oauth/callback/google"]) {
      const policy = (await fetch(`${server.url}${path}`, { redirect: "manual" })).headers.get("content-security-policy");
      expect(policy).toContain("style-src 'self' 'unsafe-inline'");
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("frame-ancestors 'none'");
    }
  });

  it("sends the AG-UI endpoint's answers the API's headers: its streams, its refusals, and the same served through Next's route", async () => {
    const answers = [
      await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")])),
      await postRun(server.url, null, runInput(randomUUID(), [userMessage("hello")])),
      await postRun(server.url, alice, "{"),
      // Not a plain agent id: Next's route answers it, with the same headers.
      await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")]), "no%20such"),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 400, 404]);
    for (const res of answers) {
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("x-request-id")).toBeTruthy();
      await res.body?.cancel();
    }
    expect(answers[0]!.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(answers[1]!.headers.get("content-type")).toMatch(/^application\/json/);
  });
});
