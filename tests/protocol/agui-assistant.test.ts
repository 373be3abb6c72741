/**
 * The `assistant` agent over AG-UI with both client generations: a real Harbor server configured
 * with a real (scripted) OpenAI-compatible model server — every event validated by the clients.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, approve, interruptsOf, postRun, runError, runInput, runTurn, streamedText, userMessage } from "../helpers/agui";
import { signInCast, trpcQuery, type Auth } from "../helpers/http";
import { startModelServer, type ModelServer } from "../helpers/model-server";
import { startServer, type RunningServer } from "../helpers/server";

describe("the assistant agent over AG-UI", () => {
  let model: ModelServer;
  let server: RunningServer;
  let alice: Auth;

  beforeAll(async () => {
    model = await startModelServer();
    server = await startServer(
      { HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted", HARBOR_STREAM_CHUNK_MS: "0" },
      "assistant",
    );
    ({ alice } = await signInCast(server.url));
  });
  beforeEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it("is listed with its tools when the model is configured, and absent (404) when it is not", async () => {
    const agents = (await trpcQuery<{ id: string; tools: { name: string }[] }[]>(server.url, alice, "agents.list")).data ?? [];
    expect(agents.map((a) => a.id)).toEqual(expect.arrayContaining(["concierge", "assistant"]));
    const [offline] = inject("servers");
    const { alice: offlineAlice } = await signInCast(offline!.url);
    const res = await postRun(offline!.url, offlineAlice, runInput(randomUUID(), [userMessage("hi")]), "assistant");
    expect(res.status).toBe(404);
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("streams the model's text as TEXT_MESSAGE_CONTENT deltas", async () => {
      model.script(() => ({ text: "Hello from a real HTTP model, word by word.", chunkMs: 25 }));
      const turn = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: randomUUID(),
        messages: [userMessage("hi")],
        agentId: "assistant",
      });
      expect(streamedText(turn.events)).toBe("Hello from a real HTTP model, word by word.");
      expect(turn.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(1);
    });

    it("turns a model's tool call into TOOL_CALL_* events and an approval interrupt; the approved call's result reaches the model", async () => {
      const to = `model-${client.version}@example.com`;
      model.script((req) =>
        req.messages.at(-1)?.role === "tool"
          ? { text: `Sent to ${to}.` }
          : { toolCalls: [{ name: "send_email", args: { to, body: "from the model" } }] },
      );
      const threadId = randomUUID();
      const parked = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [userMessage(`email ${to}`)],
        agentId: "assistant",
      });
      expect(parked.events.map((e) => e.type)).toEqual(expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]));
      const [gate] = interruptsOf(parked.events);
      expect(gate).toMatchObject({ reason: "tool_call" });
      const resumed = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [],
        agent: parked.agent,
        resume: [approve(gate!.id)],
      });
      expect(streamedText(resumed.events)).toBe(`Sent to ${to}.`);
      expect(model.requests.at(-1)!.messages.at(-1)).toMatchObject({ role: "tool" });
    });
  });

  it("ends with RUN_ERROR MODEL_UNAVAILABLE when the model keeps failing, and the next message works", { timeout: 30_000 }, async () => {
    model.script(() => ({ status: 500 }));
    const threadId = randomUUID();
    const failed = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("hello?")],
      agentId: "assistant",
      ends: "RUN_ERROR",
    });
    expect(runError(failed.events)).toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(runError(failed.events)?.message).not.toContain("127.0.0.1");
    model.script(() => ({ text: "Back again." }));
    const next = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("now?")],
      agentId: "assistant",
    });
    expect(streamedText(next.events)).toBe("Back again.");
  });
});
