/**
 * Every pause kind driven by a model's tool calls, over AG-UI with both client generations: a real
 * Harbor server configured with a real (scripted) OpenAI-compatible model server. The model calls a
 * tool, the pause opens, it is answered as its kind is answered, and the model's next request
 * carries the tool's result. Every event is validated by the clients (the helpers check them).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type { Message } from "@ag-ui/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AGUI_CLIENTS,
  cancelledEnding,
  customEvents,
  interruptsOf,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
} from "../helpers/agui";
import { consentAt } from "../helpers/consent";
import {
  authHeaders,
  readSse,
  runOnThread,
  signInAll,
  signInCast,
  trpcMutation,
  trpcQuery,
  trpcSubscribe,
  type Auth,
} from "../helpers/http";
import { startModelServer, type ChatRequest, type ModelServer } from "../helpers/model-server";
import { startServer, type RunningServer } from "../helpers/server";

type ChatMessage = ChatRequest["messages"][number];

/** The model's last message in a request, when it is a tool result. */
const toolResultOf = (request: ChatRequest | undefined): ChatMessage | undefined => {
  const last = request?.messages.at(-1);
  return last?.role === "tool" ? last : undefined;
};

/** A model that calls `name` with `args`, and once it has the result, says `reply(result)`. */
const callsThenSays = (name: string, args: unknown, reply: (result: string) => string) => (request: ChatRequest) => {
  const result = toolResultOf(request);
  return result ? { text: reply(result.content ?? "") } : { toolCalls: [{ name, args }] };
};

/** The member token the demo travel agent asks for (README). */
const MEMBER_TOKEN = "harbor-member";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the assistant's pauses over AG-UI", () => {
  let model: ModelServer;
  let server: RunningServer;
  let alice: Auth;
  let carol: Auth;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    model = await startModelServer();
    server = await startServer(
      {
        HARBOR_MODEL_BASE_URL: model.baseUrl,
        HARBOR_MODEL: "scripted",
        HARBOR_STREAM_CHUNK_MS: "0",
        HARBOR_RESEARCH_MS: "600",
      },
      "assistant-pauses",
    );
    ({ alice, carol } = await signInCast(server.url));
    const emails = ["alice@acme.test", "carol@acme.test"];
    const signed = await signInAll(server.url, emails);
    emails.forEach((email, i) => (cookies[email] = signed[i]!));
  });
  beforeEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    await server?.stop();
    await model?.close();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  const start = (client: AguiClient, auth: Auth, text: string) => {
    const threadId = randomUUID();
    return runTurn(client, { baseUrl: server.url, auth, threadId, messages: [userMessage(text)], agentId: "assistant" }).then((turn) => ({
      ...turn,
      threadId,
    }));
  };

  /** The thread's assistant message matching `pattern`, once it is there. */
  async function reply(auth: Auth, threadId: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const thread = await trpcQuery<{ messages: { role: string; content: string }[] }>(server.url, auth, "threads.get", { threadId });
      const found = thread.data?.messages.find((m) => m.role === "assistant" && pattern.test(m.content));
      if (found) return found.content;
      if (Date.now() > deadline) throw new Error(`no reply matching ${pattern} in ${JSON.stringify(thread.data?.messages)}`);
      await sleep(100);
    }
  }

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("private input: the form opens, the value goes to the tool only, and the model continues with what the tool responds", async () => {
      model.script(callsThenSays("connect_api_key", {}, (result) => `Connected (${result}).`));
      const asked = await start(client, alice, "connect my api key");
      const [form] = interruptsOf(asked.events);
      expect(form).toMatchObject({
        reason: "private_input",
        responseSchema: { properties: { apiKey: { type: "string", writeOnly: true } }, required: ["apiKey"] },
        metadata: { harnest: { privateInput: true }, harbor: { pauseReason: "hitl" } },
      });
      expect(model.requests).toHaveLength(1);

      const secret = `canary-${client.version}-${randomUUID()}`;
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        // The stock client's own resume[] for its pending interrupt, sent without the transcript.
        resume: client.resumeArray(asked.agent.pendingInterrupts, { [form!.id]: { status: "resolved", payload: { apiKey: secret } } }),
      });
      expect(done.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({ content: '{"connected":true}' });
      expect(streamedText(done.events)).toBe('Connected ({"connected":true}).');
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])).toMatchObject({ role: "tool", content: '{"connected":true}' });
      // The canary: the secret reached neither the model nor the wire.
      expect(JSON.stringify(model.requests)).not.toContain(secret);
      expect(JSON.stringify([asked.events, done.events])).not.toContain(secret);
      const thread = await trpcQuery(server.url, alice, "threads.get", { threadId: asked.threadId });
      expect(JSON.stringify(thread.data)).not.toContain(secret);
      expect(fs.readFileSync(server.logFile, "utf8")).not.toContain(secret);
    });

    it("browser tool: the call is announced, the client answers on resume, and the model gets the browser's output", async () => {
      model.script(callsThenSays("get_browser_timezone", {}, (result) => `Your browser says ${result}.`));
      const asked = await start(client, alice, "what is my time zone?");
      const [request] = customEvents(asked.events, "harnest.client_tool") as { requestId: string; toolCallId: string; toolName: string }[];
      expect(request).toMatchObject({ toolName: "get_browser_timezone" });
      expect(asked.events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({
        toolCallName: "get_browser_timezone",
        toolCallId: request!.toolCallId,
      });
      expect(model.requests).toHaveLength(1);

      const zone = client.version === "1.0.0" ? "Europe/Paris" : "Asia/Tokyo";
      const answer: Message = {
        id: randomUUID(),
        role: "tool",
        toolCallId: request!.toolCallId,
        content: JSON.stringify({ timeZone: zone }),
      };
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        agent: asked.agent,
        messages: [answer],
      });
      expect(done.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
        toolCallId: request!.toolCallId,
        content: JSON.stringify({ timeZone: zone }),
      });
      expect(streamedText(done.events)).toBe(`Your browser says {"timeZone":"${zone}"}.`);
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])).toMatchObject({ content: JSON.stringify({ timeZone: zone }) });
    });

    it("browser tool answered by a resume[] entry naming the request: the model gets the output", async () => {
      model.script(callsThenSays("get_browser_timezone", {}, (result) => `Resumed with ${result}.`));
      const asked = await start(client, alice, "what is my time zone?");
      const [request] = customEvents(asked.events, "harnest.client_tool") as { requestId: string }[];
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: [{ interruptId: request!.requestId, status: "resolved", payload: { timeZone: "America/Lima" } }],
      });
      expect(streamedText(done.events)).toBe('Resumed with {"timeZone":"America/Lima"}.');
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])).toMatchObject({ content: '{"timeZone":"America/Lima"}' });
    });

    it("OAuth: the consent interrupt opens, the owner consents at the provider, and the model reads the calendar's result", async () => {
      const email = client.version === "1.0.0" ? "alice@acme.test" : "carol@acme.test";
      const name = email.startsWith("alice") ? "Alice" : "Carol";
      const owner: Auth = { cookie: cookies[email]! };
      model.script(callsThenSays("calendar_today", {}, (result) => `From your calendar: ${result}`));
      const asked = await start(client, owner, "what is on my calendar today?");
      const [consent] = interruptsOf(asked.events);
      expect(consent).toMatchObject({
        reason: "oauth",
        metadata: {
          harbor: { pauseReason: "oauth", provider: "calendar", authorizationUrl: `${server.url}/api/oauth/connect/${consent!.id}` },
        },
      });
      expect(model.requests).toHaveLength(1);

      const opened = await fetch(consent!.metadata!.harbor!.authorizationUrl!, {
        headers: { cookie: cookies[email]! },
        redirect: "manual",
      });
      expect(opened.status).toBe(302);
      const nonce = opened.headers
        .getSetCookie()
        .find((c) => c.startsWith("harbor_oauth_"))!
        .split(";")[0]!;
      const callbackUrl = await consentAt(
        opened.headers.get("location")!,
        { email, password: "harbor" },
        { callbackPrefix: `${server.url}/api/oauth/callback/calendar` },
      );
      const page = await fetch(callbackUrl, { headers: { cookie: `${cookies[email]!}; ${nonce}` }, redirect: "manual" });
      expect(page.status).toBe(200);

      const said = await reply(owner, asked.threadId, /^From your calendar: /);
      expect(said).toContain(`Lunch with ${name}`);
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])?.content).toContain(`Lunch with ${name}`);

      // Connected now: the next call reads the calendar at once, in the same run, without a pause.
      model.requests.length = 0;
      const again = await start(client, owner, "and now?");
      expect(interruptsOf(again.events)).toEqual([]);
      expect(streamedText(again.events)).toContain(`Lunch with ${name}`);
      expect(model.requests).toHaveLength(2);
    });

    it("remote agent: its question is an interrupt, the owner's answer goes to it, and the model gets its reply", async () => {
      model.script(callsThenSays("ask_travel_agent", { request: "book a trip" }, (result) => `The travel agent says: ${result}`));
      const asked = await start(client, alice, "book me a trip");
      const [question] = interruptsOf(asked.events);
      expect(question).toMatchObject({
        reason: "input_required",
        message: "Which city?",
        metadata: { harbor: { pauseReason: "a2a", agent: "Travel agent" } },
      });
      const call = asked.events.find((e) => e.type === "TOOL_CALL_START") as { toolCallId: string; toolCallName: string } | undefined;
      expect(call?.toolCallName).toBe("ask_travel_agent");
      expect(question?.toolCallId).toBe(call?.toolCallId);
      expect(model.requests).toHaveLength(1);

      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        agent: asked.agent,
        resume: [{ interruptId: question!.id, status: "resolved", payload: { text: "Lisbon" } }],
      });
      expect(customEvents(done.events, "pause.resumed")[0]).toMatchObject({ pauseId: question!.id, decision: "resolved" });
      expect(done.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
        content: expect.stringContaining("Booked a trip to Lisbon"),
      });
      expect(streamedText(done.events)).toMatch(/^The travel agent says: .*Booked a trip to Lisbon/);
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])?.content).toContain("Booked a trip to Lisbon");
    });

    it("a cancelled pause is terminal: the run ends cancelled and the model is not asked again", async () => {
      model.script(callsThenSays("ask_travel_agent", { request: "book a trip" }, () => "should not be asked"));
      const asked = await start(client, alice, "book me a trip");
      const [question] = interruptsOf(asked.events);
      const cancelled = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: client.resumeArray(asked.agent.pendingInterrupts, { [question!.id]: { status: "cancelled" } }),
      });
      expect(cancelled.events.at(-1)).toMatchObject(cancelledEnding(client));
      expect(streamedText(cancelled.events)).not.toContain("should not be asked");
      expect(model.requests).toHaveLength(1);
    });

    it("remote agent asking for a credential: sent once to the remote task, never to the model nor the wire", async () => {
      model.script(callsThenSays("ask_travel_agent", { request: "show my bookings" }, (result) => `Your bookings: ${result}`));
      const asked = await start(client, alice, "show my bookings");
      const [question] = interruptsOf(asked.events);
      expect(question).toMatchObject({
        reason: "auth_required",
        responseSchema: { properties: { credential: { type: "string", writeOnly: true } } },
        metadata: { harnest: { privateInput: true }, harbor: { pauseReason: "a2a", agent: "Travel agent" } },
      });
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: [{ interruptId: question!.id, status: "resolved", payload: { credential: MEMBER_TOKEN } }],
      });
      expect(streamedText(done.events)).toMatch(/^Your bookings: /);
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])?.content).toMatch(/completed/);
      expect(JSON.stringify(model.requests)).not.toContain(MEMBER_TOKEN);
      expect(JSON.stringify([asked.events, done.events])).not.toContain(MEMBER_TOKEN);
    });

    it("background work: the research runs after the stream ends, and the model goes on from its result once it is done", async () => {
      const topic = `tide pools ${client.version}`;
      model.script(callsThenSays("deep_research", { topic }, (result) => `Noted: ${result}`));
      const asked = await start(client, alice, `research ${topic}`);
      const [wait] = customEvents(asked.events, "harnest.external_wait") as { responseId: string; toolCallId: string }[];
      expect(wait).toBeDefined();
      expect(asked.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: { status: "in_progress", responseId: wait!.responseId } });
      expect(asked.events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({
        toolCallName: "deep_research",
        toolCallId: wait!.toolCallId,
      });

      await expect
        .poll(
          async () => {
            const res = await fetch(`${server.url}/api/responses/${wait!.responseId}`, { headers: authHeaders(alice) });
            return ((await res.json()) as { status: string }).status;
          },
          { timeout: 15_000, interval: 100 },
        )
        .toBe("completed");
      // The model is asked again with the work's result, and its answer ends the run.
      const summary = await reply(alice, asked.threadId, /^Noted: /);
      expect(summary).toContain(`Three findings on ${topic}`);
      const continued = model.requests.find((r) => toolResultOf(r)?.content?.includes(`Three findings on ${topic}`));
      expect(continued).toBeDefined();
      const runs = await trpcQuery<{ runId: string; threadId: string; status: string }[]>(server.url, alice, "runs.list");
      await expect
        .poll(
          async () =>
            (
              await trpcQuery<{ status: string }>(server.url, alice, "runs.get", {
                runId: runs.data!.find((r) => r.threadId === asked.threadId)!.runId,
              })
            ).data?.status,
        )
        .toBe("completed");

      // The conversation goes on: the model's next request has the call and its result.
      model.script((request) => ({ text: toolResultOf(request) ? "unexpected" : "Here is what the research found." }));
      const next = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        agent: asked.agent,
        messages: [userMessage("what did it find?")],
      });
      expect(streamedText(next.events)).toBe("Here is what the research found.");
      const sent = model.requests.at(-1)!.messages;
      const result = sent.find((m) => m.role === "tool" && m.tool_call_id !== undefined);
      expect(result?.content).toContain(`Three findings on ${topic}`);
      const caller = sent.find((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0);
      expect(JSON.stringify(caller?.tool_calls)).toContain("deep_research");
      expect(sent.at(-1)).toMatchObject({ role: "user", content: "what did it find?" });
    });

    it("PAUSE between model calls: the run parks after the model's answer in flight, asks nothing more until RESUME, then goes on", async () => {
      const first = "Let me look into that for you, one careful word at a time.";
      // The first answer streams slowly and calls a tool with arguments its schema refuses: the
      // refusal goes back to the model, so a second request follows — unless the run is paused.
      model.script((request) =>
        toolResultOf(request)
          ? { text: "All done after the pause." }
          : { text: first, toolCalls: [{ name: "send_email", args: { subject: "no recipient" } }], chunkMs: 120 },
      );
      const threadId = randomUUID();
      const turn = runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [userMessage("email someone")],
        agentId: "assistant",
      });
      const runId = await runOnThread(server.url, carol, threadId, "running");
      await expect.poll(() => model.requests.length, { timeout: 10_000, interval: 20 }).toBe(1);
      const steer = (auth: Auth, instruction: unknown) =>
        trpcMutation<{ accepted: boolean }>(server.url, auth, "runs.steer", { runId, instruction });
      // Pausing is an operator's instruction: the run's owner may not.
      expect((await steer(alice, { type: "PAUSE" })).error?.data.code).toBe("FORBIDDEN");
      expect((await steer(carol, { type: "PAUSE" })).data).toEqual({ accepted: true });

      const paused = await turn;
      expect(interruptsOf(paused.events)[0]).toMatchObject({ reason: "operator_pause", metadata: { harbor: { pauseReason: "operator" } } });
      // The model call in flight finished (every word of it reached the client); the next was not made.
      expect(streamedText(paused.events)).toBe(first);
      expect(model.requests).toHaveLength(1);
      expect(
        (await trpcQuery<{ status: string; pauseReason: string | null }>(server.url, carol, "runs.get", { runId })).data,
      ).toMatchObject({
        status: "paused",
        pauseReason: "operator",
      });
      await sleep(700);
      expect(model.requests).toHaveLength(1);

      const following = readSse(await trpcSubscribe(server.url, carol, "runs.events", { runId }), (f) =>
        f.data.includes('"run.completed"'),
      );
      expect((await steer(carol, { type: "RESUME" })).data).toEqual({ accepted: true });
      const frames = await following;
      expect(frames.some((f) => f.data.includes("All done after the pause."))).toBe(true);
      expect(model.requests).toHaveLength(2);
      expect(toolResultOf(model.requests[1])).toMatchObject({ role: "tool" });
      expect((await trpcQuery<{ status: string }>(server.url, carol, "runs.get", { runId })).data?.status).toBe("completed");
      await reply(alice, threadId, /^All done after the pause\.$/);
    });
  });
});
