import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { AGUI_CLIENTS, approve, customEvents, interruptsOf, runError, runTurn, streamedText, userMessage } from "../helpers/agui";
import { signIn, trpcQuery } from "../helpers/http";
import { startServer, type RunningServer } from "../helpers/server";

const client = AGUI_CLIENTS[0]!;
const servers: RunningServer[] = [];

afterAll(async () => {
  for (const server of servers) {
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
});

async function parkEmail(baseUrl: string, cookie: string, to: string) {
  const threadId = randomUUID();
  const turn = await runTurn(client, { baseUrl, auth: { cookie }, threadId, messages: [userMessage(`send an email to ${to} saying hi`)] });
  const [gate] = interruptsOf(turn.events);
  if (!gate) throw new Error("expected an approval interrupt");
  return { threadId, gate, turn };
}

describe("approvals that can no longer be answered", () => {
  it("expire after HARBOR_APPROVAL_TTL_MS: the resume gets EXPIRED and the run ends expired", async () => {
    const server = await startServer({ HARBOR_APPROVAL_TTL_MS: "1000" }, "expiry");
    servers.push(server);
    const cookie = await signIn(server.url, "alice@acme.test");
    const { threadId, gate } = await parkEmail(server.url, cookie, "late@example.com");
    await new Promise((resolve) => setTimeout(resolve, 1_300));

    // A fresh client: @ag-ui/client itself refuses to answer an interrupt it knows has expired.
    const late = await runTurn(client, {
      baseUrl: server.url,
      auth: { cookie },
      threadId,
      messages: [],
      resume: [approve(gate.id)],
      ends: "RUN_ERROR",
    });
    expect(runError(late.events)).toMatchObject({ code: "EXPIRED" });
    const stored = await trpcQuery<{ status: string }>(server.url, { cookie }, "interactions.get", { interactionId: gate.id });
    expect(stored.data?.status).toBe("expired");
    const outbox = await trpcQuery<unknown[]>(server.url, { cookie }, "outbox.list");
    expect(outbox.data).toEqual([]);
    // The expired gate no longer blocks the thread.
    const next = await runTurn(client, { baseUrl: server.url, auth: { cookie }, threadId, messages: [userMessage("hello")] });
    expect(streamedText(next.events)).toContain("Harbor concierge");
  }, 60_000);

  it("are lost when the serving process restarts: answering gets INTERACTION_LOST, asking again works", async () => {
    const first = await startServer({}, "lifetime");
    servers.push(first);
    const cookie = await signIn(first.url, "alice@acme.test");
    const { threadId, gate, turn } = await parkEmail(first.url, cookie, "restart@example.com");
    expect(customEvents(turn.events, "pause.requested")).toHaveLength(1);
    const keyThread = randomUUID();
    const asked = await runTurn(client, {
      baseUrl: first.url,
      auth: { cookie },
      threadId: keyThread,
      messages: [userMessage("connect my api key")],
    });
    const [form] = interruptsOf(asked.events);
    await first.stop();

    const second = await startServer({ HARBOR_DATA_DIR: first.dataDir }, "lifetime-restarted");
    servers.push(second);
    const lost = await runTurn(client, {
      baseUrl: second.url,
      auth: { cookie },
      threadId,
      messages: [],
      resume: [approve(gate.id)],
      ends: "RUN_ERROR",
    });
    expect(runError(lost.events)).toMatchObject({ code: "INTERACTION_LOST", message: expect.stringMatching(/ask again/i) });
    expect((await trpcQuery<{ status: string }>(second.url, { cookie }, "interactions.get", { interactionId: gate.id })).data?.status).toBe(
      "lost",
    );
    // A private value is never replayed: the form is lost too, and the user begins a new one.
    const privateAfter = await runTurn(client, {
      baseUrl: second.url,
      auth: { cookie },
      threadId: keyThread,
      messages: [],
      resume: [{ interruptId: form!.id, status: "resolved", payload: { apiKey: "typed-before-the-restart" } }],
      ends: "RUN_ERROR",
    });
    expect(runError(privateAfter.events)).toMatchObject({ code: "INTERACTION_LOST" });

    const again = await runTurn(client, {
      baseUrl: second.url,
      auth: { cookie },
      threadId,
      messages: [userMessage("send an email to restart@example.com saying hi")],
    });
    const [fresh] = interruptsOf(again.events);
    expect(fresh?.id).not.toBe(gate.id);
    const done = await runTurn(client, {
      baseUrl: second.url,
      auth: { cookie },
      threadId,
      messages: [],
      agent: again.agent,
      resume: [approve(fresh!.id)],
    });
    expect(streamedText(done.events)).toBe("Email sent to restart@example.com.");
  }, 90_000);
});
