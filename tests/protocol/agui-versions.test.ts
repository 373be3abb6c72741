/**
 * AG-UI version negotiation against a real server, with both client generations: the 1.0.0 client
 * (which sends `protocolVersion: "1.0"`) and 0.0.59 (which sends none), every event validated by
 * each client's own schema. See the repo README's *AG-UI versions*.
 */
import { randomUUID } from "node:crypto";
import type { BaseEvent } from "@ag-ui/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, cancelledEnding, interruptsOf, postRun, runInput, runTurn, streamedText, userMessage } from "../helpers/agui";
import { signIn, signInCast, type Auth } from "../helpers/http";
import { startServer, type RunningServer } from "../helpers/server";

const server = inject("servers")[0]!;

describe("the version Harbor declares and accepts", () => {
  let alice: Auth;
  beforeAll(async () => {
    ({ alice } = await signInCast(server.url));
  });

  it.each(AGUI_CLIENTS)("declares its own version in RUN_STARTED to @ag-ui/client $version", async (client) => {
    const turn = await runTurn(client, { baseUrl: server.url, auth: alice, threadId: randomUUID(), messages: [userMessage("hello")] });
    expect(turn.events[0]).toMatchObject({ type: "RUN_STARTED", protocolVersion: "1.0" });
  });

  it("serves any 1.x minor, and refuses another major before anything starts: 400 UNSUPPORTED_PROTOCOL", async () => {
    const later = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")], { protocolVersion: "1.4" }));
    expect(later.status).toBe(200);
    expect(await later.text()).toContain('"protocolVersion":"1.0"');

    const threadId = randomUUID();
    const next = await postRun(server.url, alice, runInput(threadId, [userMessage("hello")], { protocolVersion: "2.0" }));
    expect(next.status).toBe(400);
    expect(await next.json()).toMatchObject({ error: { code: "UNSUPPORTED_PROTOCOL", field: "protocolVersion", supported: "1.x" } });
    const malformed = await postRun(server.url, alice, runInput(threadId, [userMessage("hello")], { protocolVersion: "latest" }));
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "protocolVersion" } });
    // Nothing was stored: the thread is new to the next request.
    const turn = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("hello")] });
    expect(streamedText(turn.events)).toContain("Harbor concierge");
  });
});

describe("an expired interrupt abandoned by the client that holds it", () => {
  let expiring: RunningServer;
  let cookie: string;
  beforeAll(async () => {
    expiring = await startServer({ HARBOR_APPROVAL_TTL_MS: "1500" }, "agui-versions-expiry");
    cookie = await signIn(expiring.url, "alice@acme.test");
  });
  afterAll(async () => {
    await expiring?.stop();
  });

  /** Parks an approval, then lets it expire. */
  async function expiredGate(client: (typeof AGUI_CLIENTS)[number]) {
    const threadId = randomUUID();
    const parked = await runTurn(client, {
      baseUrl: expiring.url,
      auth: { cookie },
      threadId,
      messages: [userMessage("send an email to expired@example.com saying hi")],
    });
    const [gate] = interruptsOf(parked.events);
    if (!gate) throw new Error("expected an approval interrupt");
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    return { threadId, gate, agent: parked.agent };
  }

  it("closes it and lets the thread move on, with @ag-ui/client 1.0.0 (which holds it until a RUN_FINISHED)", async () => {
    const client = AGUI_CLIENTS[0]!;
    const auth = { cookie };
    const { threadId, gate, agent } = await expiredGate(client);
    // The client's own resume list: it still holds the interrupt, and abandons it.
    const resume = client.resumeArray(agent.pendingInterrupts, { [gate.id]: { status: "cancelled" } });
    const abandoned = await runTurn(client, { baseUrl: expiring.url, auth, threadId, messages: [], agent, resume });
    expect(abandoned.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(abandoned.events.at(-1)).toMatchObject(cancelledEnding(client));
    expect(agent.pendingInterrupts).toEqual([]);
    // The same client sends its next message on the thread, and it is answered.
    const next = await runTurn(client, { baseUrl: expiring.url, auth, threadId, messages: [userMessage("hello")], agent });
    expect(streamedText(next.events)).toContain("Harbor concierge");
    expect((next.events.at(-1) as BaseEvent & { outcome?: unknown }).outcome).toEqual({ type: "success" });
  }, 30_000);

  it("answers the same abandonment from @ag-ui/client 0.0.59 in its own shape", async () => {
    // 0.0.59 refuses to send anything for an interrupt it knows expired; a fresh one (a reload) can.
    const client = AGUI_CLIENTS[1]!;
    const { threadId, gate } = await expiredGate(client);
    const abandoned = await runTurn(client, {
      baseUrl: expiring.url,
      auth: { cookie },
      threadId,
      messages: [],
      resume: [{ interruptId: gate.id, status: "cancelled" }],
    });
    expect(abandoned.events.at(-1)).toMatchObject(cancelledEnding(client));
  }, 30_000);
});
