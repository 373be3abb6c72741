import { randomUUID } from "node:crypto";
import type { BaseEvent, Message } from "@ag-ui/client";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  AGUI_CLIENTS,
  customEvents,
  postRun,
  runError,
  runInput,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
} from "../helpers/agui";
import { signInCast, trpcMutation, type Auth } from "../helpers/http";

interface BrowserRequest {
  requestId: string;
  toolCallId: string;
  toolName: string;
}

const toolMessage = (toolCallId: string, content: string): Message => ({ id: randomUUID(), role: "tool", toolCallId, content });

describe.each(inject("servers"))("browser tools over AG-UI on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    ({ alice, bob, mallory } = await signInCast(server.url));
  });

  /** Asks for the time zone: the run announces the browser tool and finishes its transport run. */
  async function ask(client: AguiClient) {
    const threadId = randomUUID();
    const turn = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("what is my time zone?")] });
    const [request] = customEvents(turn.events, "harnest.client_tool") as unknown as BrowserRequest[];
    if (!request) throw new Error("expected a harnest.client_tool event");
    return { ...turn, threadId, request };
  }

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("announces the call, finishes without an interrupt, and continues with the standard tool message", async () => {
      const asked = await ask(client);
      const types = asked.events.map((e) => e.type);
      expect(types).toEqual([
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "CUSTOM",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
      ]);
      expect(asked.events[1]).toMatchObject({ toolCallName: "get_browser_timezone", toolCallId: asked.request.toolCallId });
      expect(asked.request.toolName).toBe("get_browser_timezone");
      // A 1.x peer is told which calls the run waits for; a peer from before versions, plain success.
      expect((asked.events.at(-1) as BaseEvent & { outcome: unknown }).outcome).toEqual(
        client.versioned ? { type: "success", pendingToolCallIds: [asked.request.toolCallId] } : { type: "success" },
      );

      const answered = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        agent: asked.agent,
        messages: [toolMessage(asked.request.toolCallId, JSON.stringify({ timeZone: "Europe/Paris" }))],
      });
      expect(answered.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
        toolCallId: asked.request.toolCallId,
        content: '{"timeZone":"Europe/Paris"}',
      });
      expect(streamedText(answered.events)).toBe("Your time zone is Europe/Paris.");
      expect(customEvents(answered.events, "pause.resumed")).toEqual([]);
    });

    it("continues with a resume[] entry naming the request id", async () => {
      const asked = await ask(client);
      const answered = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: [{ interruptId: asked.request.requestId, status: "resolved", payload: { timeZone: "Asia/Tokyo" } }],
      });
      expect(streamedText(answered.events)).toBe("Your time zone is Asia/Tokyo.");
    });
  });

  const client = AGUI_CLIENTS[0]!;

  it("refuses a second delivery, by tool message or by resume[]", async () => {
    const asked = await ask(client);
    const message = toolMessage(asked.request.toolCallId, JSON.stringify({ timeZone: "UTC" }));
    await runTurn(client, { baseUrl: server.url, auth: alice, threadId: asked.threadId, messages: [message], agent: asked.agent });
    const again = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: asked.threadId,
      messages: [...(asked.messages as Message[]), message],
      ends: "RUN_ERROR",
    });
    expect(runError(again.events)).toMatchObject({ code: "ALREADY_RESOLVED" });
    const viaResume = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: asked.threadId,
      messages: [],
      resume: [{ interruptId: asked.request.requestId, status: "resolved", payload: { timeZone: "UTC" } }],
      ends: "RUN_ERROR",
    });
    expect(runError(viaResume.events)).toMatchObject({ code: "ALREADY_RESOLVED" });
  });

  it("rejects an output outside the tool's schema and keeps the call open for a valid one", async () => {
    const asked = await ask(client);
    const invalid = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: asked.threadId,
      messages: [...(asked.messages as Message[]), toolMessage(asked.request.toolCallId, JSON.stringify({ zone: 1 }))],
      ends: "RUN_ERROR",
    });
    expect(runError(invalid.events)).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("resume[0].payload") });
    const valid = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: asked.threadId,
      messages: [...(asked.messages as Message[]), toolMessage(asked.request.toolCallId, '{"timeZone":"America/Lima"}')],
    });
    expect(streamedText(valid.events)).toBe("Your time zone is America/Lima.");
  });

  it("refuses another user's delivery: forbidden in the tenant; outside it, the thread id is like an unused one", async () => {
    const asked = await ask(client);
    const body = runInput(asked.threadId, [toolMessage(asked.request.toolCallId, '{"timeZone":"UTC"}')]);
    expect((await postRun(server.url, bob, body)).status).toBe(403);
    const outside = await postRun(server.url, mallory, body);
    const unused = await postRun(
      server.url,
      mallory,
      runInput(randomUUID(), [toolMessage(asked.request.toolCallId, '{"timeZone":"UTC"}')]),
    );
    expect(outside.status).toBe(unused.status);
    await Promise.all([outside.text(), unused.text()]);
    const entry = { interactionId: asked.request.requestId, status: "resolved", payload: { timeZone: "UTC" } };
    expect((await trpcMutation(server.url, bob, "interactions.resume", entry)).error?.data.code).toBe("FORBIDDEN");
    expect((await trpcMutation(server.url, mallory, "interactions.resume", entry)).error?.data.code).toBe("NOT_FOUND");
    const answered = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: asked.threadId,
      messages: [toolMessage(asked.request.toolCallId, '{"timeZone":"UTC"}')],
      agent: asked.agent,
    });
    expect(streamedText(answered.events)).toBe("Your time zone is UTC.");
  });
});
