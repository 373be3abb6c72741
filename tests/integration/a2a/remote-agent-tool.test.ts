/**
 * Remote A2A agents through the runtime, with the real travel agent on loopback: a remote task that
 * needs input or a credential parks the run (reason `a2a`); the owner's answer goes to the same
 * remote task; cancelling the run cancels the remote task; a remote agent that is down fails the
 * run with a clear code; the wait survives a restart.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteAgent } from "@/server/a2a/remote-agent";
import { createAgents } from "@/server/agents";
import { findRun } from "@/server/db/queries/runs";
import { startTravelAgent, type RunningTravelAgent } from "@/server/peers/travel-agent";
import type { Identity, InterruptView, LoggedEvent, ResolutionInput, Runtime, StartRunRequest } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";
import { drain, refused, started, testRuntime } from "../../helpers/runtime";
import { closedPortUrl } from "../../helpers/server";

const MEMBER_TOKEN = "member-token-for-tests";
const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["approver"] };
const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["admin"] };

let counter = 0;
const ask = (threadId: string, text?: string, resume?: ResolutionInput[]): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `t-${++counter}`,
  messages: text ? [{ id: `m-${counter}-${threadId}`, role: "user", content: text }] : [],
  resume: resume?.map((r) => ({ interactionId: r.interactionId, status: r.status, payload: r.payload })),
});
const eventsOf = (logged: readonly LoggedEvent[]) => logged.map((e) => e.event);
const spoken = (events: ReturnType<typeof eventsOf>) => events.map((e) => (e.type === "text.delta" ? e.delta : "")).join("");

describe.each(testBackends())("remote A2A agents on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let agent: RunningTravelAgent;
  let runtime: Runtime;

  const runtimeFor = (url: string, timeoutMs = 10_000) =>
    testRuntime(database.db, { agents: createAgents({ travelAgent: remoteAgent(url, { timeoutMs }) }) });

  beforeAll(async () => {
    agent = await startTravelAgent({ memberToken: MEMBER_TOKEN });
    runtime = runtimeFor(agent.url);
  });
  afterAll(async () => {
    runtime?.close();
    await runtime?.idle();
    await agent?.close();
  });

  async function begin(identity: Identity, threadId: string, text: string, rt = runtime) {
    const run = started(await rt.startRun(identity, ask(threadId, text)));
    return { runId: run.runId, events: eventsOf(await drain(run.events)) };
  }
  async function answer(identity: Identity, threadId: string, entry: ResolutionInput, rt = runtime) {
    return eventsOf(await drain(started(await rt.startRun(identity, ask(threadId, undefined, [entry]))).events));
  }
  function questionOf(events: ReturnType<typeof eventsOf>): InterruptView {
    const last = events.at(-1);
    if (last?.type !== "run.paused") throw new Error(`expected the remote agent's question, got ${JSON.stringify(last)}`);
    return last.interrupts[0]!;
  }
  async function remoteTaskOf(runId: string): Promise<string> {
    const run = await findRun(database.db, runId);
    return String(run?.readCheckpoint()?.calls[0]?.paused?.state.taskId);
  }

  it("parks on the remote agent's question, sends the owner's answer to the same remote task, and finishes with its result", async () => {
    const { runId, events } = await begin(alice, "a2a-book", "ask the travel agent to book a trip");
    const question = questionOf(events);
    expect(question).toMatchObject({
      kind: "a2a",
      reason: "a2a",
      policy: "owner",
      message: "Which city?",
      detail: { prompt: "input_required", agent: "Travel agent" },
    });
    expect(question.responseSchema).toMatchObject({ properties: { text: { type: "string" } } });
    const taskId = await remoteTaskOf(runId);
    expect(await agent.taskState(taskId)).toBe("input-required");

    await expect(
      runtime.interactions.resolve(bob, { interactionId: question.id, status: "resolved", payload: { text: "Oslo" } }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      runtime.interactions.resolve(mallory, { interactionId: question.id, status: "resolved", payload: { text: "Oslo" } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const noText = refused(
      await runtime.startRun(
        alice,
        ask("a2a-book", undefined, [{ interactionId: question.id, status: "resolved", payload: { city: "Oslo" } }]),
      ),
    );
    expect(noText).toMatchObject({ code: "INVALID_INPUT" });

    const after = await answer(alice, "a2a-book", { interactionId: question.id, status: "resolved", payload: { text: "lisbon" } });
    expect(after.find((e) => e.type === "tool.result")).toMatchObject({ content: expect.stringContaining("Booked a trip to Lisbon") });
    expect(spoken(after)).toMatch(/^Travel agent: Booked a trip to Lisbon on \d{4}-\d{2}-\d{2}, confirmation TRV-/);
    expect(after.at(-1)).toMatchObject({ type: "run.completed" });
    expect(await agent.taskState(taskId)).toBe("completed");
    expect(await runtime.interactions.get(alice, question.id)).toMatchObject({ status: "resolved", decision: { text: "lisbon" } });
  });

  it("parks on auth-required, sends the credential once to the remote task, and keeps it nowhere", async () => {
    const { events } = await begin(alice, "a2a-auth", "ask the travel agent to show my bookings");
    const signIn = questionOf(events);
    expect(signIn).toMatchObject({ kind: "a2a", detail: { prompt: "auth_required" }, message: expect.stringContaining("member token") });
    expect(signIn.responseSchema).toMatchObject({ properties: { credential: { writeOnly: true } } });
    // A credential's resume carries nothing else: a transcript could echo it.
    const withTranscript = refused(
      await runtime.startRun(alice, {
        ...ask("a2a-auth", "hello", [{ interactionId: signIn.id, status: "resolved", payload: { credential: MEMBER_TOKEN } }]),
        carriesTranscript: true,
      }),
    );
    expect(withTranscript.code).toBe("PRIVATE_RESUME_HAS_TRANSCRIPT");

    const wrong = await answer(alice, "a2a-auth", {
      interactionId: signIn.id,
      status: "resolved",
      payload: { credential: "not-the-token" },
    });
    const again = questionOf(wrong);
    expect(again).toMatchObject({ detail: { prompt: "auth_required" } });
    expect(again.id).not.toBe(signIn.id);

    const right = await answer(alice, "a2a-auth", { interactionId: again.id, status: "resolved", payload: { credential: MEMBER_TOKEN } });
    expect(spoken(right)).toMatch(/^Travel agent: .*Lisbon/);
    expect(right.at(-1)).toMatchObject({ type: "run.completed" });
    expect(await runtime.interactions.get(alice, again.id)).toMatchObject({ status: "resolved", decision: { submitted: true } });
    const tables = await queryRows<{ table_name: string }>(
      database.db,
      sql`select table_name from information_schema.tables where table_schema = 'public'`,
    );
    for (const { table_name } of tables) {
      const rows = JSON.stringify(await queryRows(database.db, sql`select * from ${sql.identifier(table_name)}`));
      expect(rows, `table ${table_name}`).not.toContain(MEMBER_TOKEN);
      expect(rows, `table ${table_name}`).not.toContain("not-the-token");
    }
  });

  it("cancels the remote task when the run is cancelled, by an operator or by the owner's resume", async () => {
    const steered = await begin(alice, "a2a-cancel", "ask the travel agent to book a trip");
    questionOf(steered.events);
    const steeredTask = await remoteTaskOf(steered.runId);
    await runtime.runs.steer(alice, steered.runId, { type: "CANCEL" });
    expect(await findRun(database.db, steered.runId)).toMatchObject({ status: "cancelled" });
    await expect.poll(() => agent.taskState(steeredTask)).toBe("canceled");

    const declined = await begin(alice, "a2a-decline", "ask the travel agent to book a trip");
    const question = questionOf(declined.events);
    const declinedTask = await remoteTaskOf(declined.runId);
    const after = await answer(alice, "a2a-decline", { interactionId: question.id, status: "cancelled" });
    expect(spoken(after)).toBe("I cancelled the request to the travel agent.");
    await expect.poll(() => agent.taskState(declinedTask)).toBe("canceled");
  });

  it("expires an unanswered question, ending the run and cancelling the remote task", async () => {
    const hasty = testRuntime(database.db, {
      agents: createAgents({ travelAgent: remoteAgent(agent.url) }),
      a2aTtlMs: 1_000,
      sweepIntervalMs: 200,
    });
    try {
      const { runId, events } = await begin(alice, "a2a-expire", "ask the travel agent to book a trip", hasty);
      questionOf(events);
      const task = await remoteTaskOf(runId);
      await expect.poll(async () => (await findRun(database.db, runId))?.status, { timeout: 5_000 }).toBe("expired");
      await expect.poll(() => agent.taskState(task)).toBe("canceled");
    } finally {
      hasty.close();
      await hasty.idle();
    }
  });

  it("keeps waiting across a restart: another runtime takes the answer and finishes the remote task", async () => {
    const { runId, events } = await begin(alice, "a2a-restart", "ask the travel agent to book a trip");
    const question = questionOf(events);
    const next = runtimeFor(agent.url);
    try {
      await next.start();
      const after = await answer(
        alice,
        "a2a-restart",
        { interactionId: question.id, status: "resolved", payload: { text: "porto" } },
        next,
      );
      expect(spoken(after)).toContain("Booked a trip to Porto");
      expect(await findRun(database.db, runId)).toMatchObject({ status: "completed" });
    } finally {
      next.close();
      await next.idle();
    }
  });

  it("fails the run with REMOTE_AGENT_UNAVAILABLE when nobody answers at the agent's URL", async () => {
    const down = runtimeFor(await closedPortUrl());
    try {
      const { runId, events } = await begin(alice, "a2a-down", "ask the travel agent to book a trip", down);
      expect(events.at(-1)).toMatchObject({
        type: "run.failed",
        code: "REMOTE_AGENT_UNAVAILABLE",
        message: expect.stringContaining("cannot be reached"),
      });
      expect(await findRun(database.db, runId)).toMatchObject({ status: "failed" });
    } finally {
      down.close();
      await down.idle();
    }
  });
});
