import { randomUUID } from "node:crypto";
import { EventSchemas } from "@ag-ui/core/schemas";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { postRun, runInput, userMessage } from "../helpers/agui";
import { createToken, signIn, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string; field?: string } }).error;
}

describe.each(inject("servers"))("AG-UI endpoint on the $name server", (server) => {
  let alice: Auth;
  let aliceCookie: string;
  let bob: Auth;
  let mallory: Auth;
  let aliceThread: string;

  beforeAll(async () => {
    aliceCookie = await signIn(server.url, "alice@acme.test");
    alice = { bearer: (await createToken(server.url, aliceCookie)).token };
    bob = { cookie: await signIn(server.url, "bob@acme.test") };
    mallory = { cookie: await signIn(server.url, "mallory@globex.test") };
    aliceThread = randomUUID();
    const res = await postRun(server.url, alice, runInput(aliceThread, [userMessage("my secret plans")]));
    expect(res.status).toBe(200);
    await res.text();
  });

  it("answers SSE with the documented headers and LF-only frames that each parse", async () => {
    const res = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")]));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = await res.text();
    expect(body).not.toContain("\r");
    const frames = body.split("\n\n").filter(Boolean);
    for (const frame of frames) {
      expect(frame.startsWith("data: ")).toBe(true);
      const event = JSON.parse(frame.slice("data: ".length)) as Record<string, unknown>;
      expect(EventSchemas.safeParse(event).success).toBe(true);
      expect(JSON.stringify(event)).not.toContain("null");
      expect(Number.isInteger(event.timestamp)).toBe(true);
    }
    expect(JSON.parse(frames.at(-1)!.slice(6)).type).toBe("RUN_FINISHED");
  });

  it("refuses a request without identity with 401", async () => {
    const res = await postRun(server.url, null, runInput(randomUUID(), [userMessage("hi")]));
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe("UNAUTHENTICATED");
  });

  it("refuses an unknown bearer token with 401, without falling back to anything else", async () => {
    const res = await postRun(server.url, { bearer: "hbr_not-a-real-token" }, runInput(randomUUID(), []));
    expect(res.status).toBe(401);
  });

  it("names the offending field in a 400 for a malformed body", async () => {
    const missingRunId = await postRun(server.url, alice, { threadId: "x", messages: [] });
    expect(missingRunId.status).toBe(400);
    expect(await errorOf(missingRunId)).toMatchObject({ code: "INVALID_INPUT", field: "runId" });

    const badRole = await postRun(server.url, alice, runInput(randomUUID(), [{ id: "m", role: "boss", content: "x" } as never]));
    expect(badRole.status).toBe(400);
    expect((await errorOf(badRole)).field).toMatch(/^messages\.0/);

    const notJson = await postRun(server.url, alice, "{not json");
    expect(notJson.status).toBe(400);
    expect(await errorOf(notJson)).toMatchObject({ code: "INVALID_INPUT", field: "body" });

    const emptyThread = await postRun(server.url, alice, runInput("", []));
    expect(emptyThread.status).toBe(400);
    expect((await errorOf(emptyThread)).field).toBe("threadId");
  });

  it("refuses text the database cannot store with a 400 naming the field", async () => {
    const nul = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("a\u0000b")]));
    expect(nul.status).toBe(400);
    expect(await errorOf(nul)).toMatchObject({ code: "INVALID_INPUT", field: "messages.0.content" });
    const surrogate = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hi")], { state: { note: "\ud800" } }));
    expect(surrogate.status).toBe(400);
    expect((await errorOf(surrogate)).field).toBe("state.note");
  });

  it("refuses a body that is not application/json with 415, so cross-site forms cannot post", async () => {
    const res = await fetch(`${server.url}/api/agents/concierge/runs`, {
      method: "POST",
      headers: { "content-type": "text/plain", cookie: aliceCookie },
      body: JSON.stringify(runInput(randomUUID(), [userMessage("hi")])),
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("takes identity only from the credentials: user and tenant fields in the body change nothing", async () => {
    const threadId = randomUUID();
    const body = runInput(threadId, [userMessage("hi")], {
      state: { userId: "user-bob", tenantId: "tenant-globex" },
      forwardedProps: { userId: "user-bob", tenantId: "tenant-globex", identity: { userId: "user-bob" } },
    });
    const res = await postRun(server.url, alice, body);
    expect(res.status).toBe(200);
    await res.text();
    const bob = { cookie: await signIn(server.url, "bob@acme.test") };
    expect((await postRun(server.url, bob, runInput(threadId, [userMessage("mine?")]))).status).toBe(403);
    const owned = await trpcQuery<{ thread: { ownerId: string; tenantId: string } }>(server.url, alice, "threads.get", { threadId });
    expect(owned.data?.thread).toMatchObject({ ownerId: "user-alice", tenantId: "tenant-acme" });
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const huge = runInput(randomUUID(), [userMessage("x".repeat(1024 * 1024 + 10))]);
    const res = await postRun(server.url, alice, huge);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers 404 for an unknown agent", async () => {
    const res = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hi")]), "no-such-agent");
    expect(res.status).toBe(404);
  });

  it("treats another tenant's thread id as an unused one (a conversation of its own) and forbids another user's in the same tenant (403)", async () => {
    const fromGlobex = await postRun(server.url, mallory, runInput(aliceThread, [userMessage("let me in")]));
    const unused = await postRun(server.url, mallory, runInput(randomUUID(), [userMessage("let me in")]));
    expect(fromGlobex.status).toBe(unused.status);
    expect(fromGlobex.status).toBe(200);
    await Promise.all([fromGlobex.text(), unused.text()]);
    const aliceSees = await trpcQuery<{ messages: { content: string }[] }>(server.url, alice, "threads.get", { threadId: aliceThread });
    expect(aliceSees.data?.messages.map((m) => m.content)).not.toContain("let me in");

    const fromBob = await postRun(server.url, bob, runInput(aliceThread, [userMessage("peek")]));
    expect(fromBob.status).toBe(403);
    expect((await errorOf(fromBob)).code).toBe("FORBIDDEN");
  });

  it("accepts a bearer token until it is revoked, then answers 401 — even to a request that remembered it", async () => {
    const created = await createToken(server.url, aliceCookie, "short-lived");
    const auth = { bearer: created.token };
    // The first request looks the token up; the second is served from memory, checked as it writes.
    for (let i = 0; i < 2; i++) {
      const before = await postRun(server.url, auth, runInput(randomUUID(), [userMessage("hi")]));
      expect(before.status).toBe(200);
      await before.text();
    }

    // A gate parked here, answered on the remembered token once it is revoked: refused, still open.
    const gated = randomUUID();
    const parked = await postRun(server.url, auth, runInput(gated, [userMessage("send an email to revoked@example.com saying hi")]));
    const finished = (await parked.text())
      .split("\n\n")
      .filter(Boolean)
      .map((f) => JSON.parse(f.slice(6)) as { type: string; outcome?: { interrupts?: { id: string }[] } })
      .at(-1);
    const interruptId = finished?.outcome?.interrupts?.[0]?.id;
    expect(interruptId).toBeDefined();

    const revoked = await trpcMutation(server.url, { cookie: aliceCookie }, "tokens.revoke", { tokenId: created.id });
    expect(revoked.status).toBe(200);

    const after = await postRun(server.url, auth, runInput(randomUUID(), [userMessage("hi")]));
    expect(after.status).toBe(401);
    const answer = runInput(gated, [], { resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });
    expect((await postRun(server.url, auth, answer)).status).toBe(401);
    const gate = await trpcQuery<{ status: string }>(server.url, { cookie: aliceCookie }, "interactions.get", {
      interactionId: interruptId,
    });
    expect(gate.data?.status).toBe("pending");
  });
});
