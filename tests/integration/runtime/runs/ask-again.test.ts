/**
 * Asking again after a request nobody answered: a request that expired, or was lost when its
 * process restarted, ends its run; a new run on the thread with no new message (the chat's Retry:
 * AG-UI `resume: []` with the stored history) plans from the user's words again and opens a fresh
 * request — the user's message is not stored twice. Only the thread's owner can; a second retry
 * racing the first opens no second request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { listOutbox } from "@/server/db/queries/outbox";
import { findRun } from "@/server/db/queries/runs";
import { listMessages } from "@/server/db/queries/threads";
import type { InterruptView, LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { startModelServer, type ModelServer } from "../../../helpers/model-server";
import { ALICE, BOB, drain, MALLORY, started, testRuntime } from "../../../helpers/runtime";

const TTL_MS = 400;

const until = async <T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const gatesOf = (events: readonly LoggedEvent[]): InterruptView[] =>
  events.flatMap((e) => (e.event.type === "run.paused" ? e.event.interrupts : []));

describe.each(testBackends())("asking again after a request nobody answered, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let counter = 0;
  let model: ModelServer;
  beforeAll(async () => {
    // A model that asks to send the email the user asked for, and says so once it is sent.
    model = await startModelServer((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: "Sent." };
      const to = /to (\S+@\S+)/.exec(last?.content ?? "")?.[1] ?? "nobody@example.com";
      return { toolCalls: [{ name: "send_email", args: { to, body: "hello" } }] };
    });
    runtime = testRuntime(database.db, {
      agents: createAgents({ model: { baseUrl: model.baseUrl, model: "scripted", maxRetries: 0, timeoutMs: 10_000 } }),
      approvalTtlMs: TTL_MS,
      sweepIntervalMs: 50,
    });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await model.close();
  });

  /** Asks for an email on a new thread; returns the thread, the user's message and the open gate. */
  async function askOn(rt: Runtime, to: string, agentId = "concierge") {
    const threadId = `again-${++counter}`;
    const message = { id: `${threadId}-m`, role: "user" as const, content: `send an email to ${to} saying hello` };
    const run = started(await rt.startRun(ALICE, { agentId, threadId, transportRunId: `${threadId}-1`, messages: [message] }));
    const [gate] = gatesOf(await drain(run.events));
    if (!gate) throw new Error("expected an approval gate");
    return { threadId, message, runId: run.runId, gate };
  }

  /** The chat's Retry: no answers, no new message — the stored history as the client holds it. */
  const retry = (threadId: string, message: StartRunRequest["messages"][number], agentId = "concierge"): StartRunRequest => ({
    agentId,
    threadId,
    transportRunId: `${threadId}-retry-${++counter}`,
    messages: [message],
  });

  it("asks again after an expired request: a fresh request, approved, does the work once; the message is stored once", async () => {
    const to = "expired-again@example.com";
    const { threadId, message, runId, gate } = await askOn(runtime, to);
    await until(
      () => findRun(database.db, runId),
      (run) => run?.status === "expired",
      "the expiry",
    );
    expect(await runtime.interactions.get(ALICE, gate.id)).toMatchObject({ status: "expired" });

    const again = started(await runtime.startRun(ALICE, retry(threadId, message)));
    const [fresh] = gatesOf(await drain(again.events));
    expect(fresh).toMatchObject({ kind: "approval", tool: { name: "send_email", args: { to, body: "hello" } } });
    expect(fresh!.id).not.toBe(gate.id);
    expect(fresh!.toolCallId).not.toBe(gate.toolCallId);
    const stored = await listMessages(database.db, threadId);
    expect(stored.filter((m) => m.role === "user").map((m) => m.id)).toEqual([message.id]);

    const approved = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId,
        transportRunId: `${threadId}-approve`,
        messages: [],
        resume: [{ interactionId: fresh!.id, status: "resolved", payload: { approved: true } }],
      }),
    );
    expect((await drain(approved.events)).at(-1)?.event.type).toBe("run.completed");
    expect((await listOutbox(database.db, ALICE)).filter((row) => row.details.to === to)).toHaveLength(1);
  });

  it("asks again after a request lost with its process", async () => {
    const earlier = testRuntime(database.db);
    const to = "lost-again@example.com";
    const { threadId, message, runId, gate } = await askOn(earlier, to);
    earlier.close();
    const restarted = testRuntime(database.db);
    await restarted.start();
    try {
      await until(
        () => findRun(database.db, runId),
        (run) => run?.status === "lost",
        "the loss",
      );
      expect(await restarted.interactions.get(ALICE, gate.id)).toMatchObject({ status: "lost" });
      const again = started(await restarted.startRun(ALICE, retry(threadId, message)));
      const [fresh] = gatesOf(await drain(again.events));
      expect(fresh).toMatchObject({ kind: "approval", tool: { name: "send_email", args: { to } } });
      expect(fresh!.id).not.toBe(gate.id);
    } finally {
      restarted.close();
      await restarted.idle();
    }
  });

  it("opens one fresh request however many retries race; another user cannot retry it, another tenant cannot reach it", async () => {
    const { threadId, message, runId } = await askOn(runtime, "raced@example.com");
    await until(
      () => findRun(database.db, runId),
      (run) => run?.status === "expired",
      "the expiry",
    );
    // Bob, of the same tenant, is refused; Mallory's request names a thread of her own tenant, not Alice's.
    await expect(runtime.startRun(BOB, retry(threadId, message))).rejects.toMatchObject({ code: "FORBIDDEN" });
    const foreign = await runtime.startRun(MALLORY, retry(threadId, { ...message, id: `${message.id}-mallory` }));
    if (!("refused" in foreign) && !("abandoned" in foreign)) await drain(foreign.events);
    expect(await runtime.interactions.list(ALICE, { threadId })).toHaveLength(1);

    const runs = await Promise.all([0, 1, 2].map(() => runtime.startRun(ALICE, retry(threadId, message))));
    await Promise.all(runs.map((r) => ("events" in r ? drain(r.events) : undefined)));
    const pending = (await runtime.interactions.list(ALICE, { threadId })).filter((i) => i.status === "pending");
    expect(pending).toHaveLength(1);
    expect((await listMessages(database.db, threadId)).filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("asks a model again after an expired request: it is sent no call without its result; racing retries open one request", async () => {
    const to = "model-again@example.com";
    const { threadId, message, runId, gate } = await askOn(runtime, to, "assistant");
    await until(
      () => findRun(database.db, runId),
      (run) => run?.status === "expired",
      "the expiry",
    );
    model.requests.length = 0;
    const runs = await Promise.all([0, 1].map(() => runtime.startRun(ALICE, retry(threadId, message, "assistant"))));
    const ends = await Promise.all(runs.map(async (r) => ("events" in r ? (await drain(r.events)).at(-1)?.event : r)));
    const pending = (await runtime.interactions.list(ALICE, { threadId })).filter((i) => i.status === "pending");
    expect(pending).toHaveLength(1);
    expect(pending[0]!.interactionId).not.toBe(gate.id);
    expect(ends.filter((e) => e && "type" in e && e.type === "run.paused")).toHaveLength(1);
    // The model heard the user again, without the call nobody answered.
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain(gate.toolCallId!);
  });
});
