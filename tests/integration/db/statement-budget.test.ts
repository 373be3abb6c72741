/**
 * The statement budget of the hot paths: how many statements Harbor sends the database for one
 * chat turn, one durable email cycle (start → park → approve → send → reply) and one gate answered
 * that parks again, counted on the database handle itself. The ceilings are issue 17's budget,
 * which the paths meet: a change that adds a round trip fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgents } from "@/server/agents";
import { listenForSignals, type ClusterSignals } from "@/server/db/notifications";
import { log } from "@/server/log";
import { tool, type Planner, type Runtime, type StartedRun, type ToolDefinition } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../helpers/backends";
import { agentOf, ALICE, drain, started, testRuntime } from "../../helpers/runtime";

/** The budget: lower it as the paths get cheaper, never raise it. */
const CEILING = { chatTurn: 2, emailCycle: 4, gateOnly: 2 };

/** Asks for approval again and again: each answer parks the run at a new gate. */
const again: Planner = {
  next(state) {
    const last = state.transcript.at(-1);
    if (last?.role === "user" || last?.role === "tool") return { type: "call_tools", calls: [{ name: "gate", args: {} }] };
    return { type: "finish" };
  },
};
const gate: ToolDefinition = tool({
  name: "gate",
  description: "a gate that does nothing",
  input: z.strictObject({}),
  output: z.strictObject({}),
  approval: { policy: "owner", describe: () => "Pass" },
  execute: async () => ({}),
});

describe.each(testBackends())("statements per hot path on $name", (backend) => {
  const statements: string[] = [];
  const database = useSeededDatabase(backend, { onStatement: (sql) => statements.push(sql) });
  let runtime: Runtime;
  let counter = 0;
  beforeAll(() => {
    const agents = new Map(createAgents());
    agents.set("again", agentOf("again", again, new Map([["gate", gate]])));
    runtime = testRuntime(database.db, { agents, sweepIntervalMs: 600_000 });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  /** The statements `work` sent, once everything it started is idle. */
  async function counted(work: () => Promise<unknown>): Promise<string[]> {
    await runtime.idle();
    const from = statements.length;
    await work();
    await runtime.idle();
    return statements.slice(from);
  }
  const start = (agentId: string, content: string) => {
    const threadId = `budget-${++counter}`;
    return runtime.startRun(ALICE, {
      agentId,
      threadId,
      transportRunId: threadId,
      messages: [{ id: `${threadId}-m`, role: "user", content }],
    });
  };
  /** The gate a run parked at. */
  const gateOf = async (run: StartedRun) => {
    const last = (await drain(run.events)).at(-1)?.event;
    if (last?.type !== "run.paused" || !last.interrupts[0]) throw new Error(`expected a gate, got ${last?.type}`);
    return last.interrupts[0].id;
  };
  const report = (path: string, sent: string[]) => {
    console.log(
      `${backend.name} ${path}: ${sent.length} statements\n  ${sent.map((s) => s.replace(/\s+/g, " ").slice(0, 110)).join("\n  ")}`,
    );
    return sent.length;
  };

  it("a chat turn", async () => {
    await counted(async () => drain(started(await start("concierge", "hello")).events)); // warm-up
    const sent = await counted(async () => drain(started(await start("concierge", "hello")).events));
    expect(report("chat turn", sent)).toBeLessThanOrEqual(CEILING.chatTurn);
  });

  it("concurrent chat turns on different threads share their statements (group commit)", async () => {
    const turns = 10;
    const sent = await counted(async () =>
      Promise.all(Array.from({ length: turns }, async () => drain(started(await start("concierge", "hello")).events))),
    );
    expect(sent.filter((s) => s.includes("insert into threads"))).toHaveLength(2); // the first alone, the rest together
    expect(report(`${turns} concurrent chat turns`, sent)).toBeLessThanOrEqual(turns);
  });

  it("an email cycle: start, park, approve, send, reply", async () => {
    const sent = await counted(async () => {
      const id = await gateOf(started(await start("concierge", "send an email to budget@example.com saying hi")));
      await runtime.interactions.decide(ALICE, id, true);
    });
    expect(report("email cycle", sent)).toBeLessThanOrEqual(CEILING.emailCycle);
  });

  /** Answers a gate the AG-UI way: a resume on its thread, drained to its end. */
  const resume = async (agentId: string, run: StartedRun, interactionId: string) =>
    drain(
      started(
        await runtime.startRun(ALICE, {
          agentId,
          threadId: run.threadId,
          transportRunId: `${run.threadId}-resume`,
          messages: [],
          resume: [{ interactionId, status: "resolved", payload: { approved: true } }],
        }),
      ).events,
    );

  it("an email cycle answered with an AG-UI resume", async () => {
    const sent = await counted(async () => {
      const run = started(await start("concierge", "send an email to budget@example.com saying hi"));
      await resume("concierge", run, await gateOf(run));
    });
    expect(report("email cycle, AG-UI resume", sent)).toBeLessThanOrEqual(CEILING.emailCycle);
  });

  it("a gate answered with an AG-UI resume that parks again", async () => {
    const run = started(await start("again", "go"));
    const first = await gateOf(run);
    const sent = await counted(() => resume("again", run, first));
    expect(report("gate only, AG-UI resume", sent)).toBeLessThanOrEqual(CEILING.gateOnly);
  });

  it("a gate answered that parks again", async () => {
    const first = await gateOf(started(await start("again", "go")));
    const sent = await counted(() => runtime.interactions.decide(ALICE, first, true));
    const [next] = (await runtime.interactions.list(ALICE, { status: "pending" })).filter((i) => i.tool?.name === "gate");
    expect(next?.interactionId).toBeDefined();
    expect(report("gate only", sent)).toBeLessThanOrEqual(CEILING.gateOnly);
    await runtime.interactions.decide(ALICE, next!.interactionId, false);
  });
});

/**
 * With other instances on the database (PostgreSQL), the same paths cost no more: a run's first write
 * settles which runs of its thread go first under the thread's lock, and a freed slot looks at the
 * cluster's queue only when a run was queued somewhere.
 */
describe.runIf(process.env.TEST_DATABASE_URL)("statements per hot path with other instances, on postgres", () => {
  const statements: string[] = [];
  const database = useSeededDatabase(
    testBackends().find((b) => b.name === "postgres")!,
    { onStatement: (sql) => statements.push(sql) },
  );
  let runtime: Runtime;
  let signals: ClusterSignals;
  let counter = 0;
  beforeAll(async () => {
    signals = await listenForSignals(database.handle.url!, "i-budget", log);
    // A recheck long enough that no look at the queue falls inside a counted path by the clock.
    runtime = testRuntime(database.db, {
      alone: false,
      signals,
      instanceId: "i-budget",
      queueRecheckMs: 600_000,
      sweepIntervalMs: 600_000,
    });
    await runtime.start();
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await signals.close();
  });
  const counted = async (work: () => Promise<unknown>) => {
    await runtime.idle();
    const from = statements.length;
    await work();
    await runtime.idle();
    return statements.slice(from).filter((s) => !s.includes("instances")); // the heartbeat keeps its own time
  };
  const start = (content: string) => {
    const threadId = `cluster-budget-${++counter}`;
    return runtime.startRun(ALICE, {
      agentId: "concierge",
      threadId,
      transportRunId: threadId,
      messages: [{ id: `${threadId}-m`, role: "user", content }],
    });
  };

  it("a chat turn", async () => {
    await counted(async () => drain(started(await start("hello")).events)); // warm-up: the first freed slot looks at the queue
    const sent = await counted(async () => drain(started(await start("hello")).events));
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(CEILING.chatTurn);
  });

  it("an email cycle: start, park, approve, send, reply", async () => {
    const sent = await counted(async () => {
      const run = started(await start("send an email to budget@example.com saying hi"));
      const last = (await drain(run.events)).at(-1)?.event;
      if (last?.type !== "run.paused" || !last.interrupts[0]) throw new Error(`expected a gate, got ${last?.type}`);
      await runtime.interactions.decide(ALICE, last.interrupts[0].id, true);
    });
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(CEILING.emailCycle);
  });
});
