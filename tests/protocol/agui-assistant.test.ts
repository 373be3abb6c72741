/**
 * The `assistant` agent over AG-UI with both client generations: a real Harbor server configured
 * with a real (scripted) OpenAI-compatible model server — every event validated by the clients.
 */
import { randomUUID } from "node:crypto";
import type { BaseEvent } from "@ag-ui/client";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import {
  AGUI_CLIENTS,
  approve,
  customEvents,
  interruptsOf,
  postRun,
  runError,
  runInput,
  runTurn,
  streamedText,
  userMessage,
} from "../helpers/agui";
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
    it("says each retry of a failing model as CUSTOM model.retrying, then streams the answer", { timeout: 30_000 }, async () => {
      // The first two requests fail (503, then 429 asking for a second's wait); the third answers.
      model.script((_, i) =>
        i === 0 ? { status: 503, retryAfterSeconds: 0 } : i === 1 ? { status: 429, retryAfterSeconds: 1 } : { text: "Back in business." },
      );
      const turn = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: randomUUID(),
        messages: [userMessage("are you there?")],
        agentId: "assistant",
      });
      // `runId` is Harbor's id of the run (as in run.queued), the same for every retry of it.
      const runId = customEvents(turn.events, "model.retrying")[0]?.runId;
      expect(runId).toEqual(expect.any(String));
      expect(customEvents(turn.events, "model.retrying")).toEqual([
        { runId, attempt: 2, maxAttempts: 3, delayMs: 0, reason: "HTTP 503" },
        { runId, attempt: 3, maxAttempts: 3, delayMs: 1_000, reason: "HTTP 429" },
      ]);
      const lastRetry = turn.events.findLastIndex((e) => e.type === "CUSTOM");
      expect(lastRetry).toBeLessThan(turn.events.findIndex((e) => e.type === "TEXT_MESSAGE_START"));
      expect(streamedText(turn.events)).toBe("Back in business.");
      expect(model.requests).toHaveLength(3);
      // Nothing of the request or the endpoint is told.
      expect(JSON.stringify(customEvents(turn.events, "model.retrying"))).not.toMatch(/127\.0\.0\.1|are you there/);
    });

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
      // The call keeps the model's own id on the wire and toward the model.
      const modelCallId = (model.requests.at(-1)!.messages.find((m) => m.role === "assistant")!.tool_calls as { id: string }[])[0]!.id;
      expect(modelCallId).toMatch(/^call_/);
      expect(parked.events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallId: modelCallId });
      expect(gate).toMatchObject({ toolCallId: modelCallId });
      expect(model.requests.at(-1)!.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: modelCallId });
      // A 1.x peer is told each transport run's own model usage (the scripted server: 10 prompt
      // tokens, 5 per tool call, 1 per word); a peer from before versions is not.
      const usageOf = (events: BaseEvent[]) => (events.at(-1) as BaseEvent & { usage?: unknown }).usage;
      if (client.versioned) {
        expect(usageOf(parked.events)).toEqual([{ inputTokens: 10, outputTokens: 5, totalTokens: 15 }]);
        expect(usageOf(resumed.events)).toEqual([{ inputTokens: 10, outputTokens: 3, totalTokens: 13 }]);
      } else {
        expect(usageOf(parked.events)).toBeUndefined();
        expect(usageOf(resumed.events)).toBeUndefined();
      }
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
