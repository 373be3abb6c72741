import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  AGUI_CLIENTS,
  cancelledEnding,
  interruptsOf,
  postRun,
  runError,
  runInput,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
  type ResumeEntry,
} from "../helpers/agui";
import { createToken, signIn, trpcQuery, type Auth } from "../helpers/http";

describe.each(inject("servers"))("private input over AG-UI on the $name server", (server) => {
  let alice: Auth;

  beforeAll(async () => {
    alice = { bearer: (await createToken(server.url, await signIn(server.url, "alice@acme.test"))).token };
  });

  async function askForKey(client: AguiClient) {
    const threadId = randomUUID();
    const turn = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("connect my api key")] });
    const [form] = interruptsOf(turn.events);
    if (!form) throw new Error("expected a private_input interrupt");
    return { threadId, form, turn };
  }

  /** A private answer: resume[] alone, from a client holding no transcript. */
  const answer = (client: AguiClient, threadId: string, resume: ResumeEntry[], extra: { ends?: "RUN_ERROR" } = {}) =>
    runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [], resume, ...extra });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("asks with a private_input interrupt and answers with the declared response only", async () => {
      const { threadId, form } = await askForKey(client);
      expect(form).toMatchObject({
        reason: "private_input",
        responseSchema: { type: "object", properties: { apiKey: { type: "string", writeOnly: true } }, required: ["apiKey"] },
        metadata: { harnest: { privateInput: true }, harbor: { pauseReason: "hitl", pauseId: form.id } },
      });
      const secret = `key-${randomUUID()}`;
      const done = await answer(client, threadId, [{ interruptId: form.id, status: "resolved", payload: { apiKey: secret } }]);
      expect(done.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({ content: '{"connected":true}' });
      expect(streamedText(done.events)).toBe("API key connected.");
      expect(JSON.stringify(done.events)).not.toContain(secret);
    });
  });

  const client = AGUI_CLIENTS[0]!;

  it("cancels without a payload", async () => {
    const { threadId, form } = await askForKey(client);
    const cancelled = await answer(client, threadId, [{ interruptId: form.id, status: "cancelled" }]);
    expect(streamedText(cancelled.events)).toBe("I did not connect an API key.");
    expect(cancelled.events.at(-1)).toMatchObject(cancelledEnding(client));
  });

  it("refuses a private resume that carries messages or state, and changes nothing", async () => {
    const { threadId, form, turn } = await askForKey(client);
    const entry: ResumeEntry = { interruptId: form.id, status: "resolved", payload: { apiKey: "never-accepted-1" } };
    const withMessages = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: turn.messages as never,
      resume: [entry],
      ends: "RUN_ERROR",
    });
    expect(runError(withMessages.events)).toMatchObject({ code: "PRIVATE_RESUME_HAS_TRANSCRIPT" });
    const stated = client.create({
      url: `${server.url}/api/agents/concierge/runs`,
      headers: { authorization: `Bearer ${(alice as { bearer: string }).bearer}` },
      threadId,
      initialMessages: [],
    });
    (stated as unknown as { state: Record<string, unknown> }).state = { draft: "something" };
    const withState = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [],
      agent: stated,
      resume: [entry],
      ends: "RUN_ERROR",
    });
    expect(runError(withState.events)).toMatchObject({ code: "PRIVATE_RESUME_HAS_TRANSCRIPT" });
    // Any state counts, even one that is not an object.
    const arrayState = await postRun(server.url, alice, runInput(threadId, [], { state: ["draft"], resume: [entry] }));
    expect(await arrayState.text()).toContain('"code":"PRIVATE_RESUME_HAS_TRANSCRIPT"');
    const stored = await trpcQuery<{ status: string }>(server.url, alice, "interactions.get", { interactionId: form.id });
    expect(stored.data?.status).toBe("pending");
  });

  it("takes the value once: a second delivery is refused", async () => {
    const { threadId, form } = await askForKey(client);
    const entry: ResumeEntry = { interruptId: form.id, status: "resolved", payload: { apiKey: "first-and-only" } };
    await answer(client, threadId, [entry]);
    const again = await answer(client, threadId, [entry], { ends: "RUN_ERROR" });
    expect(runError(again.events)).toMatchObject({ code: "ALREADY_RESOLVED" });
  });
});
