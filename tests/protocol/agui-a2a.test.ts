/**
 * Remote A2A agents over the wire, with the server's embedded travel agent: the remote agent's
 * question is an AG-UI interrupt (`input_required` / `auth_required`), answered by `resume[]` on the
 * same thread; only the owner may answer; a remote agent that is down ends the run with RUN_ERROR.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
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
import { signIn, signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";
import { closedPortUrl, startServer, type RunningServer } from "../helpers/server";

/** The member token the demo travel agent asks for (README). */
const MEMBER_TOKEN = "harbor-member";

describe.each(inject("servers"))("remote A2A agents on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    ({ alice, bob, mallory } = await signInCast(server.url));
  });

  async function askTravelAgent(client: AguiClient, request: string) {
    const threadId = randomUUID();
    const turn = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage(`ask the travel agent to ${request}`)],
    });
    return { threadId, turn, question: interruptsOf(turn.events)[0] };
  }

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("interrupts with the remote agent's question and finishes the remote task with the owner's answer", async () => {
      const { threadId, turn, question } = await askTravelAgent(client, "book a trip");
      expect(question).toMatchObject({
        reason: "input_required",
        message: "Which city?",
        responseSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
        metadata: { harbor: { pauseReason: "a2a", kind: "a2a", agent: "Travel agent", policy: "owner" } },
      });
      const call = turn.events.find((e) => e.type === "TOOL_CALL_START") as { toolCallId: string; toolCallName: string } | undefined;
      expect(call?.toolCallName).toBe("ask_travel_agent");
      expect(question?.toolCallId).toBe(call?.toolCallId);
      expect(customEvents(turn.events, "pause.requested")[0]).toMatchObject({ pauseId: question!.id, reason: "a2a", kind: "a2a" });

      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [],
        agent: turn.agent,
        resume: [{ interruptId: question!.id, status: "resolved", payload: { text: "Lisbon" } }],
      });
      expect(customEvents(done.events, "pause.resumed")[0]).toMatchObject({ pauseId: question!.id, decision: "resolved" });
      expect(done.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
        content: expect.stringContaining("Booked a trip to Lisbon"),
      });
      expect(streamedText(done.events)).toMatch(
        /^Travel agent: Booked a trip to Lisbon on \d{4}-\d{2}-\d{2}, confirmation TRV-[0-9A-F]{6}\.$/,
      );
      expect(done.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    });
  });

  const client = AGUI_CLIENTS[0]!;

  it("lets only the owner answer: another user is forbidden, another tenant sees nothing, a wrong payload is refused", async () => {
    const { threadId, question } = await askTravelAgent(client, "book a trip");
    const entry = { interactionId: question!.id, status: "resolved", payload: { text: "Oslo" } };
    expect(await trpcMutation(server.url, bob, "interactions.resume", entry)).toMatchObject({
      error: { data: { harborCode: "FORBIDDEN" } },
    });
    expect(await trpcMutation(server.url, mallory, "interactions.resume", entry)).toMatchObject({
      error: { data: { harborCode: "NOT_FOUND" } },
    });
    const edited = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [],
      resume: [{ interruptId: question!.id, status: "resolved", payload: { text: "Oslo", city: "Oslo" } }],
      ends: "RUN_ERROR",
    });
    expect(runError(edited.events)).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("resume[0].payload") });
    const stored = await trpcQuery<{ status: string; detail: { prompt: string } }>(server.url, alice, "interactions.get", {
      interactionId: question!.id,
    });
    expect(stored.data).toMatchObject({ status: "pending", detail: { prompt: "input_required" } });
  });

  it("asks for a credential with auth_required, sends it once to the remote task, and never echoes it", async () => {
    const { threadId, question } = await askTravelAgent(client, "show my bookings");
    expect(question).toMatchObject({
      reason: "auth_required",
      message: "Sign in to the travel agent: enter your member token.",
      responseSchema: { properties: { credential: { type: "string", writeOnly: true } } },
      metadata: { harnest: { privateInput: true }, harbor: { pauseReason: "a2a", agent: "Travel agent" } },
    });
    const done = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [],
      resume: [{ interruptId: question!.id, status: "resolved", payload: { credential: MEMBER_TOKEN } }],
    });
    expect(streamedText(done.events)).toMatch(/^Travel agent: /);
    expect(streamedText(done.events)).not.toContain("Sign in");
    expect(JSON.stringify(done.events)).not.toContain(MEMBER_TOKEN);
    const thread = await trpcQuery(server.url, alice, "threads.get", { threadId });
    expect(JSON.stringify(thread.data)).not.toContain(MEMBER_TOKEN);
    const stored = await trpcQuery<{ decision: unknown }>(server.url, alice, "interactions.get", { interactionId: question!.id });
    expect(stored.data?.decision).toEqual({ submitted: true });
  });

  it("cancels: the run ends and says so", async () => {
    const { threadId, question } = await askTravelAgent(client, "book a trip");
    const cancelled = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [],
      resume: [{ interruptId: question!.id, status: "cancelled" }],
    });
    expect(streamedText(cancelled.events)).toBe("I cancelled the request to the travel agent.");
    expect(cancelled.events.at(-1)).toMatchObject(cancelledEnding(client));
  });
});

describe("a remote agent that is down", () => {
  let server: RunningServer;
  let alice: Auth;

  beforeAll(async () => {
    server = await startServer({ HARBOR_TRAVEL_AGENT_URL: await closedPortUrl(), HARBOR_STREAM_CHUNK_MS: "0" }, "a2a-down");
    alice = { cookie: await signIn(server.url, "alice@acme.test") };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("ends the run with a clear RUN_ERROR, not a hang, and the thread takes new messages", async () => {
    const threadId = randomUUID();
    const turn = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("ask the travel agent to book a trip")],
      ends: "RUN_ERROR",
    });
    expect(runError(turn.events)).toMatchObject({
      code: "REMOTE_AGENT_UNAVAILABLE",
      message: expect.stringMatching(/^The remote agent cannot be reached\.$/),
    });
    const next = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId: randomUUID(),
      messages: [userMessage("hello")],
    });
    expect(streamedText(next.events)).toMatch(/^Hello!/);
  });
});
