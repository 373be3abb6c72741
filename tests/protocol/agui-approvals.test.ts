import { randomUUID } from "node:crypto";
import type { Message } from "@ag-ui/client";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  AGUI_CLIENTS,
  approve,
  assertValidStream,
  customEvents,
  interruptsOf,
  postRun,
  runError,
  runInput,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
} from "../helpers/agui";
import { readSse, signInCast, trpcMutation, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";

interface OutboxRow {
  kind: string;
  details: { to: string };
  approvedBy: string | null;
}

describe.each(inject("servers"))("approval gates over AG-UI on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    ({ alice, bob, mallory } = await signInCast(server.url));
  });

  const outboxTo = async (who: Auth, to: string) =>
    ((await trpcQuery<OutboxRow[]>(server.url, who, "outbox.list")).data ?? []).filter((r) => r.details.to === to);

  /** A turn that must park on an approval; returns it with its interrupts. */
  async function parkWith(client: AguiClient, text: string, threadId = randomUUID()) {
    const turn = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage(text)] });
    const interrupts = interruptsOf(turn.events);
    expect(interrupts.length, "the run should end on an interrupt").toBeGreaterThan(0);
    return { ...turn, threadId, interrupts };
  }

  /** A resume sent by a client that holds no pending interrupts (so only the server can refuse it). */
  const freshResume = (client: AguiClient, auth: Auth, threadId: string, resume: ReturnType<typeof approve>[], messages: Message[] = []) =>
    runTurn(client, { baseUrl: server.url, auth, threadId, messages, resume, ends: "RUN_ERROR" });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("parks an email behind the owner's approval exactly as the wire contract shows", async () => {
      const to = `approve-${client.version}@example.com`;
      const parked = await parkWith(client, `send an email to ${to} saying the report is ready`);
      const types = parked.events.map((e) => e.type);
      expect(types.slice(0, 4)).toEqual(["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]);
      expect(types.slice(-4)).toEqual(["CUSTOM", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
      const [gate] = parked.interrupts;
      const [requested] = customEvents(parked.events, "pause.requested");
      expect(gate).toMatchObject({
        reason: "tool_call",
        message: `Send an email to ${to}`,
        responseSchema: {
          type: "object",
          properties: { approved: { type: "boolean" } },
          required: ["approved"],
          additionalProperties: false,
        },
        metadata: {
          harbor: {
            pauseId: gate!.id,
            pauseReason: "hitl",
            policy: "owner",
            tool: { name: "send_email", args: { to, body: "the report is ready" } },
          },
        },
      });
      expect(gate!.toolCallId).toBe((parked.events[1] as unknown as { toolCallId: string }).toolCallId);
      expect(Date.parse(gate!.expiresAt!)).toBeGreaterThan(Date.now());
      expect(requested).toEqual({
        pauseId: gate!.id,
        runId: gate!.metadata!.harbor!.runId,
        reason: "hitl",
        kind: "approval",
        resumeToken: gate!.metadata!.harbor!.resumeToken,
        expiresAt: gate!.expiresAt,
      });
      expect(await outboxTo(alice, to)).toEqual([]);

      const resumed = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: parked.threadId,
        messages: [],
        agent: parked.agent,
        resume: [approve(gate!.id)],
      });
      const after = resumed.events.map((e) => e.type);
      expect(after.slice(0, 3)).toEqual(["RUN_STARTED", "CUSTOM", "TOOL_CALL_RESULT"]);
      expect(customEvents(resumed.events, "pause.resumed")).toEqual([
        { pauseId: gate!.id, runId: gate!.metadata!.harbor!.runId, decision: "approved" },
      ]);
      expect(resumed.events[2]).toMatchObject({ toolCallId: gate!.toolCallId, role: "tool" });
      expect(streamedText(resumed.events)).toBe(`Email sent to ${to}.`);
      expect(resumed.events.at(-1)).toMatchObject({ outcome: { type: "success" } });
      expect(await outboxTo(alice, to)).toMatchObject([{ kind: "email", approvedBy: "user-alice" }]);
      expect(resumed.messages.filter((m) => m.role === "tool")).toHaveLength(1);
    });

    it("makes a rejection terminal: no outbox row, the run ends rejected, the next message starts a new run", async () => {
      const to = `reject-${client.version}@example.com`;
      const parked = await parkWith(client, `send an email to ${to} saying never`);
      const gate = parked.interrupts[0]!;
      const resumed = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: parked.threadId,
        messages: [],
        agent: parked.agent,
        resume: [approve(gate.id, false, "wrong recipient")],
      });
      expect(customEvents(resumed.events, "pause.resumed")).toMatchObject([{ decision: "rejected" }]);
      expect(streamedText(resumed.events)).toBe(`I did not make the email to ${to}; it was rejected: wrong recipient.`);
      expect(resumed.events.at(-1)).toMatchObject({ outcome: { type: "success" }, result: { status: "rejected" } });
      expect(await outboxTo(alice, to)).toEqual([]);
      const decided = await trpcQuery<{ status: string; decision: unknown }>(server.url, alice, "interactions.get", {
        interactionId: gate.id,
      });
      expect(decided.data).toMatchObject({ status: "rejected", decision: { approved: false, reason: "wrong recipient" } });

      const next = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: parked.threadId,
        messages: [userMessage("hello")],
        agent: resumed.agent,
      });
      expect(streamedText(next.events)).toContain("Harbor concierge");
      expect(customEvents(next.events, "pause.resumed")).toEqual([]);
    });

    it("accepts a resume whose messages already carry the gated call's tool message (as CopilotKit sends) without counting it twice", async () => {
      const to = `copilotkit-${client.version}@example.com`;
      const parked = await parkWith(client, `send an email to ${to} saying once`);
      const gate = parked.interrupts[0]!;
      const history = parked.messages.map((m) => ({ ...m })) as Message[];
      const withToolMessage: Message[] = [
        ...history,
        { id: randomUUID(), role: "tool", toolCallId: gate.toolCallId!, content: JSON.stringify({ approved: true }) },
      ];
      const resumed = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: parked.threadId,
        messages: withToolMessage,
        resume: [approve(gate.id)],
      });
      expect(resumed.events.filter((e) => e.type === "TOOL_CALL_RESULT")).toHaveLength(1);
      expect(await outboxTo(alice, to)).toHaveLength(1);
      const stored = await trpcQuery<{ messages: { role: string }[] }>(server.url, alice, "threads.get", { threadId: parked.threadId });
      expect(stored.data?.messages.filter((m) => m.role === "tool")).toHaveLength(1);
    });
  });

  const client = AGUI_CLIENTS[0]!;

  it("refuses an unknown interrupt id and a repeated submission, in-band, without repeating the action", async () => {
    const to = "repeat@example.com";
    const parked = await parkWith(client, `send an email to ${to} saying once only`);
    const gate = parked.interrupts[0]!;
    expect(runError((await freshResume(client, alice, parked.threadId, [approve(randomUUID())])).events)).toMatchObject({
      code: "UNKNOWN_INTERRUPT",
    });

    await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: parked.threadId,
      messages: [],
      agent: parked.agent,
      resume: [approve(gate.id)],
    });
    const repeated = await freshResume(client, alice, parked.threadId, [approve(gate.id)]);
    expect(repeated.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(runError(repeated.events)).toMatchObject({ code: "ALREADY_RESOLVED" });
    expect(await outboxTo(alice, to)).toHaveLength(1);
  });

  it("executes the action exactly once when 100 resumes of one interrupt arrive at once", async () => {
    const to = "hundred@example.com";
    const parked = await parkWith(client, `send an email to ${to} saying exactly once`);
    const body = () => runInput(parked.threadId, [], { resume: [approve(parked.interrupts[0]!.id)] });
    const answers = await Promise.all(Array.from({ length: 100 }, () => postRun(server.url, alice, body())));
    const streams = await Promise.all(
      answers.map(async (res) => (await readSse(res)).map((f) => JSON.parse(f.data) as { type: string; code?: string })),
    );
    for (const events of streams) assertValidStream(events as never, events.at(-1)?.type === "RUN_ERROR" ? "RUN_ERROR" : "RUN_FINISHED");
    const finished = streams.filter((events) => events.at(-1)?.type === "RUN_FINISHED");
    const refusedCodes = streams.filter((events) => events.at(-1)?.type === "RUN_ERROR").map((events) => events.at(-1)?.code);
    expect(finished).toHaveLength(1);
    expect(refusedCodes).toEqual(Array(99).fill("ALREADY_RESOLVED"));
    expect(await outboxTo(alice, to)).toHaveLength(1);
  });

  it("requires a resume to answer every open interrupt, and refuses new input while any is open", async () => {
    const parked = await parkWith(client, "send an email to one@example.com saying 1\nsend an email to two@example.com saying 2");
    expect(parked.interrupts).toHaveLength(2);
    const [first, second] = parked.interrupts.map((i) => i.id);

    const partial = await freshResume(client, alice, parked.threadId, [approve(first!)]);
    expect(runError(partial.events)).toMatchObject({ code: "INCOMPLETE_RESUME" });
    const newInput = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: parked.threadId,
      messages: [userMessage("hello?")],
      ends: "RUN_ERROR",
    });
    expect(runError(newInput.events)).toMatchObject({ code: "PENDING_INTERACTION" });
    expect(await outboxTo(alice, "one@example.com")).toEqual([]);

    const both = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: parked.threadId,
      messages: [],
      agent: parked.agent,
      resume: [approve(first!), approve(second!)],
    });
    expect(both.events.filter((e) => e.type === "TOOL_CALL_RESULT")).toHaveLength(2);
    expect(streamedText(both.events)).toBe("Email sent to one@example.com.\nEmail sent to two@example.com.");
    const stored = await trpcQuery<{ messages: { content: string }[] }>(server.url, alice, "threads.get", { threadId: parked.threadId });
    expect(stored.data?.messages.map((m) => m.content)).not.toContain("hello?");
  });

  it("refuses another user's resume (forbidden) and another tenant's (not found), changing nothing", async () => {
    const to = "private@example.com";
    const parked = await parkWith(client, `send an email to ${to} saying mine`);
    const gate = parked.interrupts[0]!;
    const asBob = await postRun(server.url, bob, runInput(parked.threadId, [], { resume: [approve(gate.id)] }));
    expect(asBob.status).toBe(403);
    const asMallory = await postRun(server.url, mallory, runInput(parked.threadId, [], { resume: [approve(gate.id)] }));
    expect(asMallory.status).toBe(404);
    const bobTrpc = await trpcMutation(server.url, bob, "interactions.approve", { interactionId: gate.id });
    expect(bobTrpc.error?.data).toMatchObject({ code: "FORBIDDEN", harborCode: "FORBIDDEN" });
    const malloryTrpc = await trpcMutation(server.url, mallory, "interactions.resume", {
      interactionId: gate.id,
      status: "resolved",
      payload: { approved: true },
    });
    expect(malloryTrpc.error?.data).toMatchObject({ code: "NOT_FOUND" });
    expect((await trpcQuery<{ status: string }>(server.url, alice, "interactions.get", { interactionId: gate.id })).data?.status).toBe(
      "pending",
    );
    expect(await outboxTo(alice, to)).toEqual([]);
  });

  it("routes a transfer to the approvers (four-eyes); bob approves over tRPC while alice's chat follows the continuation", async () => {
    const parked = await parkWith(client, "transfer 1,200 EUR to ACME-7");
    const gate = parked.interrupts[0]!;
    expect(gate.metadata?.harbor).toMatchObject({
      policy: "approvers",
      tool: { name: "transfer_funds", args: { amount: 1200, currency: "EUR", to: "ACME-7" } },
    });

    const selfResume = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: parked.threadId,
      messages: [],
      agent: parked.agent,
      resume: [approve(gate.id)],
      ends: "RUN_ERROR",
    });
    expect(runError(selfResume.events)).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/own request/) });
    expect((await trpcMutation(server.url, alice, "interactions.approve", { interactionId: gate.id })).error?.data.code).toBe("FORBIDDEN");

    const inbox = await trpcQuery<{ interactionId: string; requester: { email: string } }[]>(server.url, bob, "interactions.list", {
      status: "pending",
      tool: "transfer_funds",
    });
    expect(inbox.data?.find((i) => i.interactionId === gate.id)?.requester.email).toBe("alice@acme.test");

    // Alice's chat follows her run: everything after the pause arrives on the subscription.
    const runId = gate.metadata!.harbor!.runId;
    const following = await trpcSubscribe(server.url, alice, "runs.events", { runId });
    expect(following.headers.get("content-type")).toContain("text/event-stream");
    const frames = readSse(following, (f) => f.data.includes('"run.completed"'));

    const approved = await trpcMutation<{ continued: string[] }>(server.url, bob, "interactions.approve", {
      interactionId: gate.id,
      reason: "budgeted",
    });
    expect(approved.data).toEqual({ continued: [runId] });
    const events = (await frames)
      .filter((f) => f.id)
      .map((f) => (JSON.parse(f.data) as { event: { type: string; delta?: string; decision?: string } }).event);
    expect(events.find((e) => e.type === "pause.resumed")).toMatchObject({ decision: "approved" });
    expect(
      events
        .filter((e) => e.type === "text.delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Transferred 1,200 EUR to ACME-7.");
    expect(events.at(-1)?.type).toBe("run.completed");
    const sent = ((await trpcQuery<OutboxRow[]>(server.url, alice, "outbox.list")).data ?? []).filter(
      (r) => r.kind === "transfer" && r.details.to === "ACME-7",
    );
    expect(sent).toMatchObject([{ approvedBy: "user-bob" }]);
    // Other journeys on this server may have decided transfers too: this one's receipt is among them.
    const receipts = await trpcQuery<{ interactionId: string }[]>(server.url, bob, "interactions.list", {
      status: "resolved",
      tool: "transfer_funds",
    });
    expect(receipts.data?.find((r) => r.interactionId === gate.id)).toMatchObject({
      resolvedBy: { id: "user-bob" },
      decision: { approved: true, reason: "budgeted" },
    });

    // A reader that already saw the end is told the run is over, not kept waiting.
    const afterEnd = await readSse(await trpcSubscribe(server.url, alice, "runs.events", { runId, afterSeq: 10_000 }));
    expect(afterEnd.map((f) => f.event)).toEqual(["connected", "return"]);
    // Another tenant learns nothing, and gets an error it need not retry.
    const asMallory = await readSse(await trpcSubscribe(server.url, mallory, "runs.events", { runId }));
    const refused = asMallory.find((f) => f.event === "serialized-error");
    expect(JSON.parse(refused!.data)).toMatchObject({ data: { code: "NOT_FOUND" } });
  });
});
