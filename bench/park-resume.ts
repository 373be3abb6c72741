/**
 * Park → resume cycles: a gated `send_email` parks its run (durable interaction, checkpoint and
 * events), then an approval resumes it to completion. Measured in-process through the runtime API
 * and end to end over HTTP, sequentially and with 50 threads in flight, plus the heap each parked
 * run holds while 10,000 wait.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Database } from "../server/db";
import type { Identity, LoggedEvent, Planner, Runtime } from "../server/runtime";
import { agentOf, drain, started, testRuntime } from "../tests/helpers/runtime";
import { keepBusy, percentile } from "./stats";

export interface CycleResult {
  label: string;
  inFlight: number;
  cyclesPerSecond: number;
  park: { p50: number; p99: number };
  resume: { p50: number; p99: number };
  failures: number;
}

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
/** One user drives every cycle here: the per-user fairness cap (10 by default) is not what is measured. */
const UNCAPPED = { maxActiveRunsPerUser: 100 };

/** Runs `cycle` from `inFlight` workers for `seconds`; each cycle reports its park and resume times. */
async function drive(
  label: string,
  inFlight: number,
  seconds: number,
  cycle: (worker: number) => Promise<{ parkMs: number; resumeMs: number } | null>,
): Promise<CycleResult> {
  const { samples, failures, elapsedMs } = await keepBusy(inFlight, seconds, cycle);
  const parks = samples.parkMs ?? [];
  const resumes = samples.resumeMs ?? [];
  return {
    label,
    inFlight,
    cyclesPerSecond: resumes.length / (elapsedMs / 1000),
    park: { p50: percentile(parks, 50), p99: percentile(parks, 99) },
    resume: { p50: percentile(resumes, 50), p99: percentile(resumes, 99) },
    failures,
  };
}

const ask = () => `send an email to bench-${randomUUID().slice(0, 8)}@example.com saying hi`;

/** Parks one run through the runtime API; returns its interrupt id (the run waits in `runtime`). */
async function parkInProcess(runtime: Runtime, threadId: string): Promise<string | null> {
  const run = started(
    await runtime.startRun(alice, {
      agentId: "concierge",
      threadId,
      transportRunId: randomUUID(),
      messages: [{ id: randomUUID(), role: "user", content: ask() }],
    }),
  );
  const last = (await drain(run.events)).at(-1)?.event;
  return last?.type === "run.paused" ? (last.interrupts[0]?.id ?? null) : null;
}

export function measureInProcess(db: Database, inFlight: number, seconds: number): Promise<CycleResult> {
  const runtime = testRuntime(db, UNCAPPED);
  return drive("in-process (runtime API)", inFlight, seconds, async () => {
    const threadId = randomUUID();
    const t0 = performance.now();
    const interruptId = await parkInProcess(runtime, threadId);
    const t1 = performance.now();
    if (!interruptId) return null;
    const resumed = await runtime.startRun(alice, {
      agentId: "concierge",
      threadId,
      transportRunId: randomUUID(),
      messages: [],
      resume: [{ interactionId: interruptId, status: "resolved", payload: { approved: true } }],
    });
    if (!("events" in resumed)) return null;
    const events: LoggedEvent[] = await drain(resumed.events);
    if (events.at(-1)?.event.type !== "run.completed") return null;
    return { parkMs: t1 - t0, resumeMs: performance.now() - t1 };
  }).finally(() => runtime.close());
}

/** A planner that asks its owner again and again: each answer resumes the run, which parks at once. */
const GATE_CYCLES_PER_RUN = 10;
const gatekeeper: Planner = {
  next: (state) =>
    Object.keys(state.answers ?? {}).length < GATE_CYCLES_PER_RUN ? { type: "request_pause", message: "Go on?" } : { type: "finish" },
};

/**
 * The pause primitive alone: a waiting run is answered and parks again at once (the planner's
 * RequestPause), so each cycle is one resolution (claim + continuation) and one park (interaction,
 * checkpoint, events) — no run start, no tool, no reply.
 */
export function measureGateCycles(db: Database, inFlight: number, seconds: number): Promise<CycleResult> {
  const runtime = testRuntime(db, { ...UNCAPPED, agents: new Map([["gatekeeper", agentOf("gatekeeper", gatekeeper)]]) });
  const waiting = new Map<number, { threadId: string; interruptId: string }>();
  const pausedOn = (events: LoggedEvent[]) => {
    const last = events.at(-1)?.event;
    return last?.type === "run.paused" ? last.interrupts[0]?.id : undefined;
  };
  return drive("gate only (RequestPause)", inFlight, seconds, async (me) => {
    let current = waiting.get(me);
    if (!current) {
      const threadId = randomUUID();
      const run = started(
        await runtime.startRun(alice, {
          agentId: "gatekeeper",
          threadId,
          transportRunId: randomUUID(),
          messages: [{ id: randomUUID(), role: "user", content: "go" }],
        }),
      );
      const interruptId = pausedOn(await drain(run.events));
      if (!interruptId) return null;
      current = { threadId, interruptId };
    }
    const t0 = performance.now();
    const resumed = await runtime.startRun(alice, {
      agentId: "gatekeeper",
      threadId: current.threadId,
      transportRunId: randomUUID(),
      messages: [],
      resume: [{ interactionId: current.interruptId, status: "resolved", payload: { approved: true } }],
    });
    const t1 = performance.now();
    if (!("events" in resumed)) return null;
    const next = pausedOn(await drain(resumed.events));
    const t2 = performance.now();
    if (next) waiting.set(me, { threadId: current.threadId, interruptId: next });
    else waiting.delete(me);
    return { parkMs: t2 - t1, resumeMs: t1 - t0 };
  }).finally(() => runtime.close());
}

/** Gate-only then email cycles, 1 then 50 in flight, each after a second's warm-up on the same database. */
export async function gateAndEmailCycles(db: Database, seconds: number): Promise<CycleResult[]> {
  const results: CycleResult[] = [];
  for (const measure of [measureGateCycles, measureInProcess]) {
    for (const inFlight of [1, 50]) {
      await measure(db, inFlight, 1);
      results.push(await measure(db, inFlight, seconds));
    }
  }
  return results;
}

/** Reads an SSE response to its end; returns the last event. */
async function lastEvent(res: Response): Promise<Record<string, unknown> | undefined> {
  const text = await res.text();
  const frames = text.split("\n\n").filter((f) => f.startsWith("data: "));
  const last = frames.at(-1);
  return last ? (JSON.parse(last.slice(6)) as Record<string, unknown>) : undefined;
}

export function measureOverHttp(baseUrl: string, bearer: string, inFlight: number, seconds: number): Promise<CycleResult> {
  const url = `${baseUrl}/api/agents/concierge/runs`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
  const body = (threadId: string, extra: Record<string, unknown>) =>
    JSON.stringify({ threadId, runId: randomUUID(), tools: [], context: [], state: {}, forwardedProps: {}, messages: [], ...extra });
  return drive("end to end over HTTP", inFlight, seconds, async () => {
    const threadId = randomUUID();
    const t0 = performance.now();
    const parked = await lastEvent(
      await fetch(url, {
        method: "POST",
        headers,
        body: body(threadId, { messages: [{ id: randomUUID(), role: "user", content: ask() }] }),
      }),
    );
    const t1 = performance.now();
    const interrupt = (parked?.outcome as { interrupts?: { id: string }[] } | undefined)?.interrupts?.[0];
    if (!interrupt) return null;
    const resumed = await lastEvent(
      await fetch(url, {
        method: "POST",
        headers,
        body: body(threadId, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] }),
      }),
    );
    if (resumed?.type !== "RUN_FINISHED") return null;
    return { parkMs: t1 - t0, resumeMs: performance.now() - t1 };
  });
}

/**
 * Heap bytes each parked run holds: parks `count` runs (they wait in the runtime), collects
 * garbage, and compares the heap with the same runtime before parking.
 */
export async function measureParkedHeap(db: Database, count: number): Promise<{ count: number; bytesPerRun: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run the benchmark with --expose-gc");
  const runtime = testRuntime(db, { approvalTtlMs: 3_600_000 });
  // Warm every path once so code and caches do not count as per-run memory.
  for (let i = 0; i < 20; i++) await parkInProcess(runtime, randomUUID());
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const baseline = runtime.parkedCount();
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next++ < count) await parkInProcess(runtime, randomUUID());
    }),
  );
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  const parked = runtime.parkedCount() - baseline;
  runtime.close();
  return { count: parked, bytesPerRun: (after - before) / parked };
}
