/**
 * A graceful stop hands an instance's work to the others (PostgreSQL: two runtimes on one database,
 * each with its own listener): its durable waits are taken over where the answer arrives, runs
 * waiting for their turn go to the cluster's queue at once, a run still executing when the grace
 * period ends is handed back between two steps and finishes on the other from its checkpoint, and
 * a forwarded answer it never decided goes back to its sender. Alone (both engines), a stop ends
 * what it holds as before, and then starts nothing more.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import type { Database } from "@/server/db";
import { listenForSignals, type ClusterSignals } from "@/server/db/notifications";
import { beginRun } from "@/server/db/queries/run-writes";
import { findRun, listRunEvents } from "@/server/db/queries/runs";
import { log } from "@/server/log";
import { HarborError, type LoggedEvent, type Runtime, type StartRunRequest } from "@/server/runtime";
import { createRouter, NotForwarded, type RoutedRequest } from "@/server/runtime/cluster/routing";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, CAROL, drain, started, testRuntime } from "../../../helpers/runtime";

const STEP_MS = 40;

const say = (threadId: string, text: string): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: randomUUID(),
  messages: [{ id: randomUUID(), role: "user", content: text }],
});

/** The numbers a counting run said, in the order its log has them. */
async function counted(db: Database, runId: string): Promise<number[]> {
  return (await listRunEvents(db, runId)).flatMap((e) =>
    e.data.type === "text.delta" && /^\d+$/.test(e.data.delta) ? [Number(e.data.delta)] : [],
  );
}
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, withinMs = 10_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(process.env.TEST_DATABASE_URL)("a graceful stop hands its work over, on postgres", () => {
  const database = useSeededDatabase(testBackends().find((b) => b.name === "postgres")!);
  const listeners: ClusterSignals[] = [];
  const running: Runtime[] = [];

  /** An instance of its own on the shared database: its listener, durable approvals, short heartbeats. */
  async function instance(id: string, options: { maxActiveRuns?: number } = {}) {
    const signals = await listenForSignals(database.handle.url!, id, log);
    listeners.push(signals);
    const runtime = testRuntime(database.db, {
      agents: createAgents({ stepMs: STEP_MS }),
      alone: false,
      signals,
      instanceId: id,
      durableWaits: ["approval"],
      instanceHeartbeatMs: 100,
      instanceTtlMs: 5_000,
      sweepIntervalMs: 600_000,
      ...options,
    });
    await runtime.start();
    running.push(runtime);
    return runtime;
  }

  let b: Runtime;
  beforeAll(async () => {
    b = await instance("i-b");
  });
  afterAll(async () => {
    for (const runtime of running) runtime.close();
    for (const runtime of running) await runtime.idle();
    for (const signals of listeners) await signals.close();
  });

  const stoppingAt = async (id: string) =>
    (await queryRows<{ stopping_at: Date | null }>(database.db, sql`select stopping_at from instances where id = ${id}`))[0]?.stopping_at ??
    null;

  it("an approval parked on A is answered on B while A stops: B takes it over, the email is sent once", async () => {
    const a = await instance("i-a-approval");
    const to = `handoff-${randomUUID().slice(0, 6)}@example.com`;
    const asked = started(await a.startRun(ALICE, say(randomUUID(), `send an email to ${to} saying hi`)));
    const gate = (await drain(asked.events)).flatMap((e) => (e.event.type === "pause.requested" ? [e.event] : []))[0]!;
    // A stays in its stop a while: a slow run goes on there.
    const slow = started(await a.startRun(ALICE, say(randomUUID(), "count slowly to 100")));
    const stopped = a.stop(2_000);
    await until(
      () => stoppingAt("i-a-approval"),
      (at) => at !== null,
    );

    expect(await b.interactions.decide(ALICE, gate.id, true)).toEqual({ continued: [asked.runId] });
    const run = await until(
      () => findRun(database.db, asked.runId),
      (r) => r?.status === "completed",
    );
    expect(run).toMatchObject({ status: "completed", instanceId: "i-b" });
    const sent = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from outbox where details->>'to' = ${to}`);
    expect(sent[0]?.n).toBe(1);
    await stopped;
    // The slow run was handed back when the grace period ended, and finished on B.
    expect(
      await until(
        () => findRun(database.db, slow.runId),
        (r) => r?.status === "completed",
      ),
    ).toMatchObject({ instanceId: "i-b" });
  });

  it("hands a run executing at the end of the grace period back between steps: B goes on from its checkpoint, every number once", async () => {
    const a = await instance("i-a-executing");
    const run = started(await a.startRun(ALICE, say(randomUUID(), "count slowly to 30")));
    // A's own stream says the run went elsewhere (what B writes reaches it through the cluster's
    // notifications, which this database's shared test connections do not send).
    const seen: LoggedEvent["event"]["type"][] = [];
    const reading = (async () => {
      for await (const batch of run.events) {
        seen.push(...batch.map((e) => e.event.type));
        if (seen.includes("run.handed_off")) break;
      }
    })();
    await until(
      () => counted(database.db, run.runId),
      (n) => n.length >= 3,
    );
    await a.stop(50);
    await reading;
    expect(seen.filter((t) => t === "run.handed_off")).toHaveLength(1);

    const ended = await until(
      () => findRun(database.db, run.runId),
      (r) => r?.status === "completed",
    );
    expect(ended).toMatchObject({ status: "completed", instanceId: "i-b", error: null });
    expect(await counted(database.db, run.runId)).toEqual(oneTo(30));
    const types = (await listRunEvents(database.db, run.runId)).map((e) => e.type);
    expect(types.filter((t) => t === "run.handed_off")).toHaveLength(1);
    expect(types).not.toContain("run.failed");
    const checkpoint = (await findRun(database.db, run.runId))?.readCheckpoint();
    expect(checkpoint?.handoff).toBeUndefined();
  });

  it("hands a run waiting for its turn to the cluster's queue at once: it starts on B as soon as its thread lets it", async () => {
    const a = await instance("i-a-queue");
    // The second run of a thread waits for the first (double-texting's default): only A holds it.
    const threadId = randomUUID();
    const busy = started(await a.startRun(ALICE, say(threadId, "count slowly to 25")));
    const next = started(await a.startRun(ALICE, say(threadId, "count slowly to 3")));
    expect(
      await until(
        () => findRun(database.db, next.runId),
        (r) => r?.status === "queued",
      ),
    ).toMatchObject({ status: "queued", instanceId: "i-a-queue" });

    const stopped = a.stop(3_000);
    await until(
      () => stoppingAt("i-a-queue"),
      (at) => at !== null,
    );
    // At once, while its thread's first run still goes on on A: the cluster's, no instance's.
    expect(
      await until(
        () => findRun(database.db, next.runId),
        (r) => r?.instanceId === null,
        1_000,
      ),
    ).toMatchObject({
      status: "queued",
      instanceId: null,
    });
    expect((await findRun(database.db, busy.runId))?.status).toBe("running");
    // As that one ends (within the grace period, on A), B takes it.
    expect(
      await until(
        () => findRun(database.db, next.runId),
        (r) => r?.status === "completed",
      ),
    ).toMatchObject({ instanceId: "i-b" });
    expect(await findRun(database.db, busy.runId)).toMatchObject({ status: "completed", instanceId: "i-a-queue" });
    expect(await counted(database.db, next.runId)).toEqual(oneTo(3));
    await stopped;
  });

  it("a new run that reaches A as it stops goes to the cluster's queue at once; once stopped, A starts nothing", async () => {
    const a = await instance("i-a-late");
    const busy = started(await a.startRun(ALICE, say(randomUUID(), "count slowly to 15")));
    const stopped = a.stop(3_000);
    await until(
      () => stoppingAt("i-a-late"),
      (at) => at !== null,
    );
    const late = started(await a.startRun(ALICE, say(randomUUID(), "count slowly to 2")));
    expect(
      await until(
        () => findRun(database.db, late.runId),
        (r) => r?.status === "completed",
        3_000,
      ),
    ).toMatchObject({
      instanceId: "i-b",
    });
    expect((await listRunEvents(database.db, late.runId)).map((e) => e.type)).toContain("run.handed_off");
    expect((await findRun(database.db, busy.runId))?.status).toBe("running");
    await stopped;
    const refusal = await a.startRun(ALICE, say(randomUUID(), "hello")).catch((error: unknown) => error);
    expect(HarborError.is(refusal) && refusal.code).toBe("INSTANCE_STOPPING");
  });

  it("keeps steering that reaches a run as it is handed back", async () => {
    const a = await instance("i-a-steer");
    const run = started(await a.startRun(ALICE, say(randomUUID(), "count slowly to 12")));
    void drain(run.events);
    await until(
      () => counted(database.db, run.runId),
      (n) => n.length >= 2,
    );
    // Sent as the stop begins: applied once, on whichever instance the run then is.
    const steering = a.runs.steer(CAROL, run.runId, { type: "INJECT_CONTEXT", context: "handed over" });
    await a.stop(0);
    expect(await steering).toEqual({ accepted: true });
    await until(
      () => findRun(database.db, run.runId),
      (r) => r?.status === "completed",
    );
    const notes = (await listRunEvents(database.db, run.runId)).flatMap((e) => (e.data.type === "steer.applied" ? [e.data.detail] : []));
    expect(notes).toEqual(["handed over"]);
    expect(await counted(database.db, run.runId)).toEqual(oneTo(12));
  });

  describe("forwarded requests", () => {
    const request: RoutedRequest = {
      type: "steer",
      identity: { tenantId: "t", userId: "u", roles: ["member"] },
      runId: "r",
      instruction: { type: "CANCEL" },
    };
    const sealer = { seal: (text: string) => text, open: (text: string) => text };

    it("a request its target gives back as it closes is thrown back as NotForwarded, never decided there", async () => {
      const [aSignals, senderSignals] = await Promise.all([
        listenForSignals(database.handle.url!, "i-router-a", log),
        listenForSignals(database.handle.url!, "i-router-b", log),
      ]);
      listeners.push(aSignals, senderSignals);
      let release: () => void = () => undefined;
      const handled: string[] = [];
      const target = createRouter({
        db: database.db,
        log,
        instanceId: "i-router-a",
        signals: aSignals,
        sealer,
        handle: async (r) => {
          handled.push(r.type === "steer" ? r.runId : "");
          await new Promise<void>((resolve) => (release = resolve));
          return { runIds: [] };
        },
      });
      const sender = createRouter({
        db: database.db,
        log,
        instanceId: "i-router-b",
        signals: senderSignals,
        sealer,
        handle: async () => ({ runIds: [] }),
      });
      // One request is being decided on A as it closes: that one is answered.
      const first = sender.forward("i-router-a", { ...request, runId: "r-first" });
      await until(
        async () => handled.length,
        (n) => n === 1,
      );
      const closing = target.close();
      // One that arrives meanwhile is not taken, and goes back to its sender.
      const second = sender.forward("i-router-a", { ...request, runId: "r-second" }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      await closing;
      expect(await first).toEqual({ runIds: [] });
      expect(await second).toBeInstanceOf(NotForwarded);
      expect(handled).toEqual(["r-first"]);
    });

    it("a request to an instance that left without taking it is given up within a check", async () => {
      const signals = await listenForSignals(database.handle.url!, "i-router-c", log);
      listeners.push(signals);
      const sender = createRouter({
        db: database.db,
        log,
        instanceId: "i-router-c",
        signals,
        sealer,
        handle: async () => ({ runIds: [] }),
        checkMs: 100,
        isGone: async (id) => id === "i-left",
      });
      const startedAt = Date.now();
      await expect(sender.forward("i-left", request)).rejects.toBeInstanceOf(NotForwarded);
      expect(Date.now() - startedAt).toBeLessThan(2_000);
      const left = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from routed_requests where target_instance = 'i-left'`,
      );
      expect(left[0]?.n).toBe(0);
    });
  });
});

describe.each(testBackends())("a stop with no other instance, on $name", (backend) => {
  const database = useSeededDatabase(backend);

  it("ends the runs it holds as before, and then starts and decides nothing (INSTANCE_STOPPING)", async () => {
    const runtime = testRuntime(database.db, {
      agents: createAgents({ stepMs: STEP_MS }),
      maxActiveRuns: 1,
      instanceId: `i-alone-${backend.name}`,
    });
    await runtime.start();
    const busy = started(await runtime.startRun(ALICE, say(randomUUID(), "count slowly to 200")));
    const queued = started(await runtime.startRun(ALICE, say(randomUUID(), "count slowly to 2")));
    await until(
      () => findRun(database.db, queued.runId),
      (r) => r?.status === "queued",
    );
    await runtime.stop(50);
    for (const runId of [busy.runId, queued.runId]) {
      expect(await findRun(database.db, runId)).toMatchObject({ status: "failed", error: { code: "INSTANCE_LOST" } });
    }
    const refusal = await runtime.startRun(ALICE, say(randomUUID(), "hello")).catch((error: unknown) => error);
    expect(HarborError.is(refusal) && refusal.code).toBe("INSTANCE_STOPPING");
    const decision = await runtime.interactions.decide(ALICE, "none", true).catch((error: unknown) => error);
    expect(HarborError.is(decision) && decision.code).toBe("INSTANCE_STOPPING");
  });

  it("CANCEL ends a run handed to the cluster's queue that no instance holds", async () => {
    const runtime = testRuntime(database.db, { instanceId: `i-cancel-${backend.name}`, alone: false });
    const runId = `unheld-${backend.name}`;
    await beginRun(database.db, {
      thread: { id: runId, tenantId: ALICE.tenantId, ownerId: ALICE.userId, title: runId },
      messages: [{ id: `${runId}-m`, role: "user", content: "hello" }],
      run: { id: runId, agentId: "concierge", transportRunId: runId, instanceId: "i-gone" },
      events: [{ seq: 1, type: "run.started", data: { type: "run.started", runId, threadId: runId, agentId: "concierge" } }],
    });
    await database.db.execute(sql`update runs set status = 'queued', instance_id = null where id = ${runId}`);
    expect(await runtime.runs.steer(ALICE, runId, { type: "CANCEL" })).toEqual({ accepted: true });
    expect(await findRun(database.db, runId)).toMatchObject({ status: "cancelled" });
    const types = (await listRunEvents(database.db, runId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(["run.cancelled", "run.completed"]);
    runtime.close();
  });
});
