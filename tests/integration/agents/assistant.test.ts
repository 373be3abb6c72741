import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createAgents } from "@/server/agents";
import { listOutbox } from "@/server/db/queries/outbox";
import { findRun } from "@/server/db/queries/runs";
import { listMessages } from "@/server/db/queries/threads";
import type { Identity, LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../helpers/backends";
import { checksItsOwnCallIds, startModelServer, type ModelServer } from "../../helpers/model-server";
import { drain, started, testRuntime } from "../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };
const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

let counter = 0;
const request = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "assistant",
  threadId,
  transportRunId: `assistant-${++counter}`,
  messages: text ? [{ id: `assistant-m-${counter}`, role: "user", content: text }] : [],
  resume,
});

/** The most characters of text and tool arguments one model request may stream here. */
const MAX_CHARS = 20_000;

const types = (events: readonly LoggedEvent[]) => events.map((e) => e.event.type);
const lastOf = (events: readonly LoggedEvent[]) => events.at(-1)!.event;
const approve = (id: string, approved = true) => [{ interactionId: id, status: "resolved" as const, payload: { approved } }];

describe.each(testBackends())("the assistant (a model planner) on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let model: ModelServer;
  let runtime: Runtime;

  beforeAll(async () => {
    model = await startModelServer();
    runtime = testRuntime(database.db, {
      agents: createAgents({
        model: { baseUrl: model.baseUrl, model: "scripted", maxRetries: 2, timeoutMs: 10_000, maxTokens: 512, maxOutputChars: MAX_CHARS },
        researchMs: 30,
      }),
    });
    // The job runner works on background work.
    await runtime.start();
  });
  beforeEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await model.close();
  });

  it("streams the model's words as they come and completes", async () => {
    // Words come slower than a write takes, so each goes out as it comes (faster ones share a delta).
    model.script(() => ({ text: "Hello there, alice. How can I help?", chunkMs: 25 }));
    const run = started(await runtime.startRun(alice, request("m-hello", "hi")));
    const events = await drain(run.events);
    const deltas = events.flatMap((e) => (e.event.type === "text.delta" ? [e.event.delta] : []));
    expect(deltas.join("")).toBe("Hello there, alice. How can I help?");
    expect(deltas.length).toBeGreaterThan(1);
    expect(lastOf(events).type).toBe("run.completed");
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: "user", content: "hi" });
    expect(model.requests[0]!.tools?.map((t) => t.function.name)).toContain("send_email");
    // The scripted server reports 10 prompt tokens and one completion token per word.
    expect((await runtime.runs.get(alice, run.runId)).usage).toEqual({ inputTokens: 10, outputTokens: 7 });
  });

  it("tells each stretch of a run what it spent on the model: the park, then the resume, each its own calls", async () => {
    model.script((req) =>
      req.messages.at(-1)?.role === "tool"
        ? { text: "Sent.", usage: { prompt: 40, completion: 2 } }
        : { toolCalls: [{ name: "send_email", args: { to: "usage@example.com", body: "hi" } }], usage: { prompt: 30, completion: 9 } },
    );
    const run = started(await runtime.startRun(alice, request("m-stretch", "email usage@example.com")));
    const parked = lastOf(await drain(run.events));
    expect(parked).toMatchObject({ type: "run.paused", usage: { inputTokens: 30, outputTokens: 9 } });
    if (parked.type !== "run.paused") throw new Error("expected a pause");
    const resumed = started(await runtime.startRun(alice, request("m-stretch", undefined, approve(parked.interrupts[0]!.id))));
    expect(lastOf(await drain(resumed.events))).toEqual({ type: "run.completed", usage: { inputTokens: 40, outputTokens: 2 } });
    // The run as a whole still counts both.
    expect((await runtime.runs.get(alice, run.runId)).usage).toEqual({ inputTokens: 70, outputTokens: 11 });
  });

  it("sums the tokens per tenant for its admins and per owner for members; other tenants see none of it", async () => {
    const since = new Date();
    model.script(() => ({ text: "one two three", usage: { prompt: 100, completion: 3 } }));
    await drain(started(await runtime.startRun(alice, request("m-usage-a", "hi"))).events);
    await drain(started(await runtime.startRun(carol, request("m-usage-c", "hi"))).events);
    expect(await runtime.runs.usage(alice, since)).toEqual({ inputTokens: 100, outputTokens: 3, runs: 1 });
    expect(await runtime.runs.usage(carol, since)).toEqual({ inputTokens: 200, outputTokens: 6, runs: 2 });
    expect(await runtime.runs.usage(mallory, since)).toEqual({ inputTokens: 0, outputTokens: 0, runs: 0 });
    expect((await runtime.runs.usage(carol)).inputTokens).toBeGreaterThanOrEqual(200);
  });

  it("puts a model's tool call through its tool's gate; after approval the model continues from the tool's result", async () => {
    model.script((req) =>
      req.messages.at(-1)?.role === "tool"
        ? { text: "Done: the email is on its way." }
        : { text: "I'll send it.", toolCalls: [{ name: "send_email", args: { to: "bob@example.com", body: "lunch at noon" } }] },
    );
    const run = started(await runtime.startRun(alice, request("m-email", "email bob: lunch at noon")));
    const parked = lastOf(await drain(run.events));
    if (parked.type !== "run.paused") throw new Error(`expected a pause, got ${parked.type}`);
    expect(parked.interrupts).toMatchObject([{ kind: "approval", tool: { name: "send_email", args: { to: "bob@example.com" } } }]);
    const resumed = started(await runtime.startRun(alice, request("m-email", undefined, approve(parked.interrupts[0]!.id))));
    const events = await drain(resumed.events);
    expect(types(events)).toEqual(expect.arrayContaining(["tool.result", "text.delta", "run.completed"]));
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1]!.messages.filter((m) => m.role !== "system");
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(second[2]!.content).toContain('"sent":true');
  });

  it("answers a model's tool call under the model's own id: an approved email is sent once and asked for once", async () => {
    const to = "own-id@example.com";
    model.script(checksItsOwnCallIds({ name: "send_email", args: { to, body: "hi" } }, "Sent."));
    const run = started(await runtime.startRun(alice, request("m-own-id", `email ${to}`)));
    const parked = lastOf(await drain(run.events));
    if (parked.type !== "run.paused") throw new Error(`expected a pause, got ${parked.type}`);
    const resumed = started(await runtime.startRun(alice, request("m-own-id", undefined, approve(parked.interrupts[0]!.id))));
    const events = await drain(resumed.events);
    expect(lastOf(events).type).toBe("run.completed");
    expect(model.requests).toHaveLength(2);
    // The thread, the log and the wire know the call by the model's id too, as it is free there.
    const modelCallId = (model.requests[1]!.messages.find((m) => m.role === "assistant")!.tool_calls as { id: string }[])[0]!.id;
    expect(modelCallId).toMatch(/^own-0-/);
    expect(parked.interrupts[0]!.toolCallId).toBe(modelCallId);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: modelCallId });
    expect((await listOutbox(database.db, alice)).filter((row) => row.details.to === to)).toHaveLength(1);
  });

  it("renames a call whose id the thread already used, and still answers the model under its own", async () => {
    // A model that numbers its calls from zero every turn: `call_0` twice in one thread.
    const threadId = "m-reused-id";
    for (const [turn, to] of ["first@example.com", "second@example.com"].entries()) {
      model.script(checksItsOwnCallIds({ name: "send_email", args: { to, body: "hi" } }, `Sent ${turn}.`, ["call_0"]));
      const run = started(await runtime.startRun(alice, request(threadId, `email ${to}`)));
      const parked = lastOf(await drain(run.events));
      if (parked.type !== "run.paused") throw new Error(`expected a pause, got ${parked.type}`);
      const wireId = parked.interrupts[0]!.toolCallId!;
      expect(turn === 0 ? wireId === "call_0" : wireId !== "call_0").toBe(true);
      const resumed = started(await runtime.startRun(alice, request(threadId, undefined, approve(parked.interrupts[0]!.id))));
      expect(lastOf(await drain(resumed.events)).type).toBe("run.completed");
      const toolResults = model.requests.at(-1)!.messages.filter((m) => m.role === "tool");
      expect(toolResults.map((m) => m.tool_call_id)).toEqual(turn === 0 ? ["call_0"] : ["call_0", "call_0"]);
    }
    // Each email is its own call in the outbox's exactly-once key: both were sent.
    const sent = (await listOutbox(database.db, alice)).map((row) => row.details.to);
    expect(sent.filter((to) => to === "first@example.com" || to === "second@example.com")).toHaveLength(2);
  });

  it("opens several interrupts at once for several gated calls in one model step", async () => {
    model.script((req) =>
      req.messages.at(-1)?.role === "tool"
        ? { text: "Both sent." }
        : {
            toolCalls: [
              { name: "send_email", args: { to: "a@example.com", body: "one" } },
              { name: "send_email", args: { to: "b@example.com", body: "two" } },
            ],
          },
    );
    const run = started(await runtime.startRun(alice, request("m-two", "email a and b")));
    const parked = lastOf(await drain(run.events));
    if (parked.type !== "run.paused") throw new Error("expected a pause");
    expect(parked.interrupts).toHaveLength(2);
    const resumed = started(
      await runtime.startRun(
        alice,
        request("m-two", undefined, [...approve(parked.interrupts[0]!.id), ...approve(parked.interrupts[1]!.id)]),
      ),
    );
    expect(lastOf(await drain(resumed.events)).type).toBe("run.completed");
    expect(model.requests[1]!.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("keeps a rejection terminal: the run ends rejected and the model is not asked again", async () => {
    model.script(() => ({ toolCalls: [{ name: "send_email", args: { to: "eve@example.com", body: "secrets" } }] }));
    const run = started(await runtime.startRun(alice, request("m-reject", "email eve")));
    const parked = lastOf(await drain(run.events));
    if (parked.type !== "run.paused") throw new Error("expected a pause");
    const resumed = started(await runtime.startRun(alice, request("m-reject", undefined, approve(parked.interrupts[0]!.id, false))));
    expect(lastOf(await drain(resumed.events))).toMatchObject({ type: "run.completed", status: "rejected" });
    expect(model.requests).toHaveLength(1);
  });

  it("sends arguments that fail the tool's schema back to the model as a tool error, and goes on when it corrects them", async () => {
    model.script((req, i) =>
      i === 0
        ? { toolCalls: [{ name: "send_email", args: { to: "not an address", body: "hi" } }] }
        : req.messages.at(-1)?.role === "tool" && i === 1
          ? { text: "Sorry, I need a valid address." }
          : { text: "ok" },
    );
    const run = started(await runtime.startRun(alice, request("m-invalid", "email someone")));
    const events = await drain(run.events);
    expect(lastOf(events).type).toBe("run.completed");
    const toolMessage = model.requests[1]!.messages.at(-1)!;
    expect(toolMessage.role).toBe("tool");
    expect(toolMessage.content).toContain("do not match its schema");
    // One refused call, answered once, under the model's own id (the SDK reports a bad call twice).
    const refusedCall = model.requests[1]!.messages.find((m) => m.role === "assistant")!.tool_calls as { id: string }[];
    expect(refusedCall).toHaveLength(1);
    expect(model.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([refusedCall[0]!.id]);
  });

  it("refuses a call whose arguments are not JSON once, under the model's id, and goes on when the model corrects it", async () => {
    model.script((req, i) =>
      i === 0
        ? { toolCalls: [{ id: "call_broken", name: "send_email", args: null, rawArgs: '{"to": "x@example.com", "bo' }] }
        : { text: "ok" },
    );
    const run = started(await runtime.startRun(alice, request("m-unparsable", "email someone")));
    expect(lastOf(await drain(run.events)).type).toBe("run.completed");
    const second = model.requests[1]!.messages;
    expect(second.filter((m) => m.role === "assistant").flatMap((m) => (m.tool_calls ?? []) as { id: string }[])).toEqual([
      expect.objectContaining({ id: "call_broken" }),
    ]);
    expect(second.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_broken"]);
  });

  it("stops a model that never stops talking at the turn's bound: MODEL_OUTPUT_TOO_LARGE, its words so far kept and closed", async () => {
    model.script(() => ({ text: "Here goes:", endless: "blah ".repeat(200) }));
    const run = started(await runtime.startRun(alice, request("m-endless", "talk forever")));
    const events = await drain(run.events);
    expect(lastOf(events)).toMatchObject({ type: "run.failed", code: "MODEL_OUTPUT_TOO_LARGE" });
    // Every request asks for a bounded answer.
    expect(model.requests[0]!.max_tokens).toBe(512);
    // The request was stopped, not read to its end, and what was said stays in the thread, ended.
    await vi.waitFor(() => expect(model.hungUp).toBeGreaterThan(0));
    const said = events.flatMap((e) => (e.event.type === "text.delta" ? [e.event.delta] : [])).join("");
    expect(said.startsWith("Here goes:")).toBe(true);
    expect(said.length).toBeLessThanOrEqual(MAX_CHARS);
    expect(types(events)).toContain("text.ended");
    const kept = (await listMessages(database.db, "m-endless")).filter((m) => m.role === "assistant");
    expect(kept.map((m) => m.content.length)).toEqual([said.length]);
  });

  it("stores and echoes a refused call's oversized arguments only as their size; past the turn's bound, the request stops", async () => {
    const huge = "x".repeat(15_000);
    model.script((_, i) =>
      i === 0 ? { toolCalls: [{ id: "call_big", name: "send_email", args: { to: "bob@example.com", body: huge } }] } : { text: "ok" },
    );
    const run = started(await runtime.startRun(alice, request("m-bigargs", "email bob a novel")));
    const events = await drain(run.events);
    expect(lastOf(events).type).toBe("run.completed");
    const call = events.map((e) => e.event).find((e) => e.type === "tool.call");
    expect(call).toMatchObject({ toolCallId: "call_big", args: { omitted: expect.stringMatching(/^\d+ characters of arguments/) } });
    expect(JSON.stringify(events)).not.toContain(huge);
    expect(JSON.stringify(await listMessages(database.db, "m-bigargs"))).not.toContain(huge);
    // The model hears its call refused, under its id, without its megabytes sent back.
    expect(JSON.stringify(model.requests[1]!.messages)).not.toContain(huge);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_big" });

    model.script(() => ({ toolCalls: [{ name: "send_email", args: { to: "bob@example.com", body: "y".repeat(8 * 1024 * 1024) } }] }));
    const flood = started(await runtime.startRun(alice, request("m-floodargs", "email bob eight megabytes")));
    const flooded = await drain(flood.events);
    expect(lastOf(flooded)).toMatchObject({ type: "run.failed", code: "MODEL_OUTPUT_TOO_LARGE" });
    expect(flooded.some((e) => e.event.type === "tool.call")).toBe(false);
  });

  it("retries a 500 and a 429, then answers; a model that keeps failing ends the run MODEL_UNAVAILABLE", { timeout: 60_000 }, async () => {
    model.script((_, i) => (i === 0 ? { status: 500 } : i === 1 ? { status: 429, retryAfterSeconds: 0 } : { text: "Third time lucky." }));
    const run = started(await runtime.startRun(alice, request("m-retry", "hello?")));
    const events = await drain(run.events);
    expect(lastOf(events).type).toBe("run.completed");
    expect(model.requests).toHaveLength(3);
    // Each retry is in the run's log before its wait: the backoff's 2 s, then the 0 s the 429 asked for.
    const retries = events.map((e) => e.event).filter((e) => e.type === "model.retrying");
    expect(retries).toEqual([
      { type: "model.retrying", attempt: 2, maxAttempts: 3, delayMs: 2_000, reason: "HTTP 500" },
      { type: "model.retrying", attempt: 3, maxAttempts: 3, delayMs: 0, reason: "HTTP 429" },
    ]);
    expect(types(events).indexOf("model.retrying")).toBeLessThan(types(events).indexOf("text.started"));
    // Stored and read back through the run's event codec like every other event.
    const stored = await runtime.runs.timeline(alice, run.runId);
    expect(stored.filter((e) => e.event.type === "model.retrying")).toHaveLength(2);

    model.requests.length = 0;
    model.script(() => ({ status: 503 }));
    const failing = started(await runtime.startRun(alice, request("m-down", "hello?")));
    const failed = await drain(failing.events);
    expect(lastOf(failed)).toMatchObject({ type: "run.failed", code: "MODEL_UNAVAILABLE" });
    expect(types(failed).filter((t) => t === "model.retrying")).toHaveLength(2);
    expect(model.requests).toHaveLength(3);
  });

  it("stops a model that never stops calling tools wrongly: TOOL_FAILED after three refused steps", async () => {
    model.script(() => ({ toolCalls: [{ name: "no_such_tool", args: {} }] }));
    const run = started(await runtime.startRun(alice, request("m-loop", "loop")));
    expect(lastOf(await drain(run.events))).toMatchObject({ type: "run.failed", code: "TOOL_FAILED" });
    expect(model.requests).toHaveLength(3);
  });

  it("CANCEL aborts the model's answer in flight: the run ends cancelled at once", async () => {
    model.script(() => ({ text: "a very slow answer indeed", chunkMs: 2_000 }));
    const run = started(await runtime.startRun(alice, request("m-cancel", "take your time")));
    const events: LoggedEvent[] = [];
    const reading = (async () => {
      for await (const batch of run.events) events.push(...batch);
    })();
    await expect.poll(() => events.some((e) => e.event.type === "text.delta"), { timeout: 5_000 }).toBe(true);
    const before = Date.now();
    await runtime.runs.steer(carol, run.runId, { type: "CANCEL" });
    await reading;
    expect(Date.now() - before).toBeLessThan(1_500);
    expect(types(events)).toEqual(expect.arrayContaining(["text.ended", "run.cancelled"]));
    expect((await findRun(database.db, run.runId))?.status).toBe("cancelled");
  });

  it("takes steering into the next model request: injected context and a redirect as instructions", async () => {
    model.script((_, i) =>
      i === 0
        ? {
            text: "Let me draft that for you now.",
            chunkMs: 150,
            toolCalls: [{ name: "send_email", args: { to: "bob@example.com", body: "draft" } }],
          }
        : { text: "Done, in French." },
    );
    const run = started(await runtime.startRun(alice, request("m-steer", "email bob a draft")));
    const events: LoggedEvent[] = [];
    const reading = (async () => {
      for await (const batch of run.events) events.push(...batch);
    })();
    await expect.poll(() => events.some((e) => e.event.type === "text.delta"), { timeout: 5_000 }).toBe(true);
    await runtime.runs.steer(carol, run.runId, { type: "INJECT_CONTEXT", context: "Bob reads only French." });
    await runtime.runs.steer(carol, run.runId, { type: "REDIRECT", goal: "Write the email in French." });
    await runtime.runs.steer(alice, run.runId, { type: "USER_MESSAGE", message: "and sign it Alice" });
    await reading;
    const parked = lastOf(events);
    if (parked.type !== "run.paused") throw new Error(`expected a pause, got ${parked.type}`);
    const resumed = started(await runtime.startRun(alice, request("m-steer", undefined, approve(parked.interrupts[0]!.id))));
    expect(lastOf(await drain(resumed.events)).type).toBe("run.completed");
    const next = model.requests[1]!;
    const system = next.messages
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n");
    expect(system).toContain("Bob reads only French.");
    expect(system).toContain("Write the email in French.");
    expect(next.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["email bob a draft", "and sign it Alice"]);
  });

  it("goes on from background work's result: the model is asked again with it, and its answer ends the run", async () => {
    model.script((req) =>
      req.messages.at(-1)?.role === "tool"
        ? { text: "The research found three things." }
        : { toolCalls: [{ name: "deep_research", args: { topic: "kelp" } }] },
    );
    const run = started(await runtime.startRun(alice, request("m-research", "research kelp")));
    expect(lastOf(await drain(run.events)).type).toBe("run.paused");
    await expect.poll(async () => (await findRun(database.db, run.runId))?.status, { timeout: 10_000 }).toBe("completed");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("Three findings on kelp") });
    const said = (await listMessages(database.db, "m-research")).filter((m) => m.role === "assistant").map((m) => m.content);
    expect(said.at(-1)).toBe("The research found three things.");
    expect(said.join(" ")).not.toContain("Research on kelp is done");
  });

  it("never sends a private value to the model", async () => {
    const canary = "canary-7f3a9c-do-not-leak";
    model.script((req) =>
      req.messages.at(-1)?.role === "tool" ? { text: "Your key is stored." } : { toolCalls: [{ name: "connect_api_key", args: {} }] },
    );
    const run = started(await runtime.startRun(alice, request("m-private", "store my api key")));
    const parked = lastOf(await drain(run.events));
    if (parked.type !== "run.paused") throw new Error("expected a private form");
    const resumed = started(
      await runtime.startRun(alice, {
        ...request("m-private"),
        resume: [{ interactionId: parked.interrupts[0]!.id, status: "resolved", payload: { apiKey: canary } }],
        carriesTranscript: false,
      }),
    );
    expect(lastOf(await drain(resumed.events)).type).toBe("run.completed");
    expect(model.requests.length).toBe(2);
    expect(JSON.stringify(model.requests)).not.toContain(canary);
  });

  it("asks for a private form once when the model checks its own call id", async () => {
    model.script(checksItsOwnCallIds({ name: "connect_api_key", args: {} }, "Your key is stored."));
    const run = started(await runtime.startRun(alice, request("m-private-once", "store my api key")));
    const parked = lastOf(await drain(run.events));
    if (parked.type !== "run.paused") throw new Error("expected a private form");
    const resumed = started(
      await runtime.startRun(alice, {
        ...request("m-private-once"),
        resume: [{ interactionId: parked.interrupts[0]!.id, status: "resolved", payload: { apiKey: "sk-test-1234567890" } }],
        carriesTranscript: false,
      }),
    );
    const events = await drain(resumed.events);
    expect(lastOf(events).type).toBe("run.completed");
    expect(types(events)).not.toContain("run.paused");
    expect(model.requests).toHaveLength(2);
  });
});
