/**
 * Steering and scheduling, in-process through the runtime API:
 * - steering latency: with 200 live counting runs, an instruction accepted → its effect in the
 *   run's log (`steer.applied`), against the run's own step interval (safe points come once a step);
 * - scheduler throughput: short runs completed per second with HARBOR_MAX_ACTIVE_RUNS saturated,
 *   against the same runs with no limit.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createAgents } from "../server/agents";
import type { Database } from "../server/db";
import type { Identity, LoggedEvent, Runtime } from "../server/runtime";
import { drain, started, testRuntime } from "../tests/helpers/runtime";
import { percentile } from "./stats";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };

const start = (runtime: Runtime, text: string) =>
  runtime.startRun(alice, {
    agentId: "concierge",
    threadId: randomUUID(),
    transportRunId: randomUUID(),
    messages: [{ id: randomUUID(), role: "user", content: text }],
  });

export interface SteeringLatency {
  liveRuns: number;
  samples: number;
  p50: number;
  p99: number;
  stepMs: number;
}

export async function measureSteeringLatency(db: Database, liveRuns: number, samples: number, stepMs: number): Promise<SteeringLatency> {
  const runtime = testRuntime(db, { agents: createAgents({ stepMs }), maxActiveRuns: liveRuns + 10, maxSteps: 1_000_000 });
  const runs = [];
  for (let i = 0; i < liveRuns; i++) {
    const run = started(await start(runtime, "count slowly to 9999"));
    void run.events.return?.();
    runs.push(run.runId);
  }
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const runId = runs[i % runs.length]!;
    const follow = runtime.follow(runId);
    const t0 = performance.now();
    await runtime.runs.steer(carol, runId, { type: "INJECT_CONTEXT", context: `note ${i}` });
    for await (const batch of follow) {
      if (batch.some((e: LoggedEvent) => e.event.type === "steer.applied")) break;
    }
    latencies.push(performance.now() - t0);
  }
  for (const runId of runs) {
    await runtime.runs.steer(carol, runId, { type: "CANCEL", mode: "isolate" }).catch((error: unknown) => {
      // A run may have ended on its own meanwhile; anything else is a real failure.
      if ((error as { code?: string }).code !== "RUN_ENDED") throw error;
    });
  }
  await runtime.idle();
  runtime.close();
  latencies.sort((a, b) => a - b);
  return { liveRuns, samples, p50: percentile(latencies, 50), p99: percentile(latencies, 99), stepMs };
}

export interface SchedulerThroughput {
  label: string;
  maxActive: number;
  runs: number;
  runsPerSecond: number;
}

export async function measureScheduler(db: Database, maxActive: number, runs: number, label: string): Promise<SchedulerThroughput> {
  const runtime = testRuntime(db, { maxActiveRuns: maxActive });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: runs }, async () => {
      const run = started(await start(runtime, "hello"));
      await drain(run.events);
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  runtime.close();
  return { label, maxActive, runs, runsPerSecond: runs / elapsed };
}
