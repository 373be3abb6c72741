/**
 * Deadlines that do something: a gate nobody decides is escalated to another group (who may then
 * decide it), its deciders are reminded before it expires, and on expiry its declared safe default
 * applies — reject (the run ends `expired`) or cancel (the run ends `cancelled`). Each is a row's
 * timer, acted on once by whichever instance sweeps, recorded in the run's log and the audit. The
 * clock is shortened by the gate's TTL setting: the concierge declares its spans as shares of it.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgents } from "@/server/agents";
import { listAudit } from "@/server/db/queries/audit";
import { findRun, listRunEvents } from "@/server/db/queries/runs";
import {
  tool,
  type AgentDefinition,
  type DeadlinePolicy,
  type InterruptView,
  type Planner,
  type Runtime,
  type ToolDefinition,
} from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { agentOf, ALICE, BOB, CAROL, drain, started, testRuntime } from "../../../helpers/runtime";

const TTL_MS = 4_000;
const SWEEP_MS = 50;

/** A tool gated for its owner with `deadline`, and an agent that calls it with the user's text. */
function gatedAgent(id: string, deadline: DeadlinePolicy): AgentDefinition {
  const note: ToolDefinition = tool({
    name: "note",
    description: "writes a note",
    input: z.strictObject({ text: z.string() }),
    output: z.strictObject({ noted: z.string() }),
    approval: { policy: "owner", describe: ({ text }) => `Note ${text}`, deadline },
    execute: async ({ text }) => ({ noted: text }),
  });
  const planner: Planner = {
    next(state) {
      const last = state.transcript.at(-1);
      if (last?.role === "user") return { type: "call_tools", calls: [{ name: "note", args: { text: last.content } }] };
      if (last?.role === "tool") return { type: "say", text: `done: ${last.content}` };
      return { type: "finish" };
    },
  };
  return agentOf(id, planner, new Map([["note", note]]));
}

const until = async <T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe.each(testBackends())("gate deadlines on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let counter = 0;
  beforeAll(() => {
    const agents = new Map(createAgents());
    for (const agent of [
      gatedAgent("escalating-note", { escalate: { to: "approvers", after: "40%" } }),
      gatedAgent("cancelling-note", { onExpiry: "cancel" }),
      gatedAgent("misdeclared-note", { remindBefore: "150%" }),
    ])
      agents.set(agent.id, agent);
    runtime = testRuntime(database.db, { agents, approvalTtlMs: TTL_MS, sweepIntervalMs: SWEEP_MS });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  async function ask(agentId: string, content: string) {
    const threadId = `d-${++counter}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId,
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content }],
      }),
    );
    const events = await drain(run.events);
    return { runId: run.runId, events, gate: events.flatMap((e) => (e.event.type === "run.paused" ? e.event.interrupts : []))[0] };
  }
  const gateOf = (gate: InterruptView | undefined): InterruptView => {
    if (!gate) throw new Error("expected the run to park at a gate");
    return gate;
  };
  // Read through the event codec, as every reader of the log does.
  const logOf = (runId: string) => listRunEvents(database.db, runId);
  const auditOf = async (interactionId: string) =>
    (await listAudit(database.db, ALICE.tenantId, { type: "interaction", id: interactionId })).reverse().map((a) => ({
      action: a.action,
      outcome: a.outcome,
      details: a.details,
    }));

  it("escalates a transfer nobody decided to the admins, reminds, then rejects it by default on expiry — logged and audited", async () => {
    const { runId, gate } = await ask("concierge", `transfer 10 EUR to DEADLINE-${counter}`);
    const announced = gateOf(gate);
    expect(announced.deadline).toMatchObject({ escalateTo: "admins", onExpiry: "reject" });
    expect(announced.deadline!.escalateAt!).toBeLessThan(announced.deadline!.remindAt!);
    expect(announced.deadline!.remindAt!).toBeLessThan(announced.expiresAt);

    const escalated = await until(
      () => runtime.interactions.get(CAROL, announced.id),
      (i) => i.deadline.escalatedAt !== null,
      "the escalation",
    );
    expect(escalated).toMatchObject({ status: "pending", deadline: { escalateTo: "admins", remindedAt: null } });
    await until(
      () => runtime.interactions.get(CAROL, announced.id),
      (i) => i.deadline.remindedAt !== null,
      "the reminder",
    );
    await until(
      () => findRun(database.db, runId),
      (run) => run?.status === "expired",
      "the expiry",
    );

    const log = await logOf(runId);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, index) => index + 1));
    expect(log.slice(-3).map((e) => e.type)).toEqual(["pause.escalated", "pause.reminder", "run.failed"]);
    expect(log.at(-3)!.data).toMatchObject({ pauseId: announced.id, to: "admins", expiresAt: announced.expiresAt });
    expect(log.at(-1)!.data).toMatchObject({ code: "EXPIRED" });
    expect(await auditOf(announced.id)).toEqual([
      { action: "interaction.escalate", outcome: "escalated", details: expect.objectContaining({ runId, escalatedTo: "admins" }) },
      { action: "interaction.remind", outcome: "reminded", details: expect.objectContaining({ runId }) },
      { action: "interaction.close", outcome: "expired", details: { runId, onExpiry: "reject" } },
    ]);
    const transfers = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from outbox where run_id = ${runId}`);
    expect(transfers[0]!.n).toBe(0);
  });

  it("lets the group it escalated to decide it from then on, never before; the run goes on with its log in order", async () => {
    const { runId, gate } = await ask("escalating-note", "escalate me");
    const open = gateOf(gate);
    await expect(runtime.interactions.decide(BOB, open.id, true)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await runtime.interactions.list(BOB, { status: "pending" })).map((i) => i.interactionId)).not.toContain(open.id);

    await until(
      () => runtime.interactions.get(ALICE, open.id),
      (i) => i.deadline.escalatedAt !== null,
      "the escalation",
    );
    expect((await runtime.interactions.list(BOB, { status: "pending" })).map((i) => i.interactionId)).toContain(open.id);
    expect(await runtime.interactions.decide(BOB, open.id, true, "covering for alice")).toEqual({ continued: [runId] });
    await until(
      () => findRun(database.db, runId),
      (run) => run?.status === "completed",
      "the run to complete",
    );

    // The journal that continued the run numbered its events after the escalation written meanwhile.
    const log = await logOf(runId);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, index) => index + 1));
    const types = log.map((e) => e.type);
    expect(types.indexOf("pause.escalated")).toBeGreaterThan(types.indexOf("run.paused"));
    expect(types.indexOf("pause.resumed")).toBeGreaterThan(types.indexOf("pause.escalated"));
    expect(log.find((e) => e.type === "pause.resumed")!.data).toMatchObject({ decision: "approved", actorId: BOB.userId });
  });

  it("cancels the run when the gate's safe default is cancel", async () => {
    const { runId, gate } = await ask("cancelling-note", "cancel me");
    const open = gateOf(gate);
    expect(open.deadline).toEqual({ onExpiry: "cancel" });
    await until(
      () => findRun(database.db, runId),
      (run) => run?.status === "cancelled",
      "the cancellation",
    );
    const log = await logOf(runId);
    expect(log.slice(-2).map((e) => e.data)).toEqual([
      { type: "run.cancelled", by: "system" },
      { type: "run.completed", status: "cancelled" },
    ]);
    expect((await runtime.interactions.get(ALICE, open.id)).status).toBe("expired");
    expect(await auditOf(open.id)).toEqual([{ action: "interaction.close", outcome: "expired", details: { runId, onExpiry: "cancel" } }]);
  });

  it("refuses a late answer with EXPIRED and still applies the safe default", async () => {
    const slow = testRuntime(database.db, {
      agents: new Map([["cancelling-note", gatedAgent("cancelling-note", { onExpiry: "cancel" })]]),
      approvalTtlMs: 300,
      sweepIntervalMs: 60_000,
      alone: false,
    });
    try {
      const threadId = `d-late-${++counter}`;
      const run = started(
        await slow.startRun(ALICE, {
          agentId: "cancelling-note",
          threadId,
          transportRunId: threadId,
          messages: [{ id: `${threadId}-m`, role: "user", content: "too late" }],
        }),
      );
      const paused = (await drain(run.events)).at(-1)!.event;
      if (paused.type !== "run.paused") throw new Error("expected a gate");
      await new Promise((resolve) => setTimeout(resolve, 400));
      await expect(slow.interactions.decide(ALICE, paused.interrupts[0]!.id, true)).rejects.toMatchObject({ code: "EXPIRED" });
      expect((await findRun(database.db, run.runId))?.status).toBe("cancelled");
    } finally {
      slow.close();
      await slow.idle();
    }
  });

  it("fails a run loudly when its tool declares a reminder outside the gate's time", async () => {
    const { runId, events } = await ask("misdeclared-note", "never parks");
    expect(events.at(-1)!.event).toMatchObject({ type: "run.failed", code: "TOOL_FAILED" });
    expect((await findRun(database.db, runId))?.status).toBe("failed");
  });

  it("acts on a deadline once however many instances sweep, and after the instance that parked it is gone", async () => {
    const durable = () =>
      testRuntime(database.db, {
        agents: createAgents(),
        approvalTtlMs: 2_000,
        sweepIntervalMs: 60_000,
        durableWaits: ["approval"],
        alone: false,
      });
    const first = durable();
    const threadId = `d-durable-${++counter}`;
    const run = started(
      await first.startRun(ALICE, {
        agentId: "concierge",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: `transfer 20 EUR to DURABLE-${counter}` }],
      }),
    );
    const paused = (await drain(run.events)).at(-1)!.event;
    if (paused.type !== "run.paused") throw new Error("expected a gate");
    const gate = paused.interrupts[0]!;
    first.close();
    await first.idle();

    // Two fresh instances sweep at once after the escalation fell due: it happens once.
    const [a, b] = [durable(), durable()];
    try {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, gate.deadline!.escalateAt! - Date.now() + 50)));
      await Promise.all([a.sweepNow(), b.sweepNow(), a.sweepNow(), b.sweepNow()]);
      const escalations = (await logOf(run.runId)).filter((e) => e.type === "pause.escalated");
      expect(escalations).toHaveLength(1);
      expect((await auditOf(gate.id)).filter((x) => x.action === "interaction.escalate")).toHaveLength(1);
      // An admin decides it on the instance that took it over; the run completes there.
      expect(await a.interactions.decide(CAROL, gate.id, true)).toEqual({ continued: [run.runId] });
      await until(
        () => findRun(database.db, run.runId),
        (r) => r?.status === "completed",
        "the run to complete",
      );
      const log = await logOf(run.runId);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, index) => index + 1));
    } finally {
      for (const r of [a, b]) {
        r.close();
        await r.idle();
      }
    }
  });
});
