/**
 * Scale-out on PostgreSQL: park → resume cycles over HTTP at 50 threads with 1, 2 and 3 instances
 * (each cycle parks and resumes on the same instance, cycles spread over all), and the latency of a
 * resume answered by another instance than the one holding the run, next to the same instance.
 * CPU seconds per cycle for each Harbor process and for PostgreSQL show where the 2 cores go.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { keepBusy, percentile } from "./stats";

export interface ScaleResult {
  instances: number;
  cyclesPerSecond: number;
  failures: number;
  /** CPU milliseconds per cycle: each Harbor process, then PostgreSQL's processes together. */
  cpuMsPerCycle: { harbor: number[]; postgres: number };
}

export interface CrossLatency {
  same: { p50: number; p99: number };
  cross: { p50: number; p99: number };
  samples: number;
}

const ask = () => `send an email to scale-${randomUUID().slice(0, 8)}@example.com saying hi`;

async function lastEvent(res: Response): Promise<Record<string, unknown> | undefined> {
  const frames = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: "));
  const last = frames.at(-1);
  return last ? (JSON.parse(last.slice(6)) as Record<string, unknown>) : undefined;
}

function post(baseUrl: string, bearer: string, threadId: string, extra: Record<string, unknown>) {
  return fetch(`${baseUrl}/api/agents/concierge/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ threadId, runId: randomUUID(), tools: [], context: [], state: {}, forwardedProps: {}, messages: [], ...extra }),
  });
}

/** One cycle: parks on `parkOn`, resumes on `resumeOn`; the resume's wall time, or null when it failed. */
async function cycle(parkOn: string, resumeOn: string, bearer: string): Promise<number | null> {
  const threadId = randomUUID();
  const parked = await lastEvent(await post(parkOn, bearer, threadId, { messages: [{ id: randomUUID(), role: "user", content: ask() }] }));
  const interrupt = (parked?.outcome as { interrupts?: { id: string }[] } | undefined)?.interrupts?.[0];
  if (!interrupt) return null;
  const t0 = performance.now();
  const resumed = await lastEvent(
    await post(resumeOn, bearer, threadId, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] }),
  );
  return resumed?.type === "RUN_FINISHED" ? performance.now() - t0 : null;
}

/** CPU time (user + system) of a process, in milliseconds, from /proc. */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}

function postgresPids(): number[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("postgres");
      } catch {
        return false;
      }
    });
}

export async function measureScale(
  urls: readonly string[],
  pids: readonly number[],
  bearer: string,
  inFlight: number,
  seconds: number,
): Promise<ScaleResult> {
  const pg = postgresPids();
  const before = { harbor: pids.map(cpuMs), postgres: pg.reduce((sum, pid) => sum + cpuMs(pid), 0) };
  const { samples, failures } = await keepBusy(inFlight, seconds, async (worker) => {
    const url = urls[worker % urls.length]!;
    const ms = await cycle(url, url, bearer);
    return ms === null ? null : { resumeMs: ms };
  });
  const cycles = (samples.resumeMs ?? []).length;
  const after = { harbor: pids.map(cpuMs), postgres: pg.reduce((sum, pid) => sum + cpuMs(pid), 0) };
  return {
    instances: urls.length,
    cyclesPerSecond: cycles / seconds,
    failures,
    cpuMsPerCycle: {
      harbor: pids.map((_, i) => (after.harbor[i]! - before.harbor[i]!) / Math.max(cycles, 1)),
      postgres: (after.postgres - before.postgres) / Math.max(cycles, 1),
    },
  };
}

/** Park on A and resume on A, then park on A and resume on B, alternately; resume latencies of each. */
export async function measureCrossInstance(a: string, b: string, bearer: string, samples: number): Promise<CrossLatency> {
  const same: number[] = [];
  const cross: number[] = [];
  for (let i = 0; i < samples; i++) {
    const s = await cycle(a, a, bearer);
    const c = await cycle(a, b, bearer);
    if (s !== null) same.push(s);
    if (c !== null) cross.push(c);
  }
  same.sort((x, y) => x - y);
  cross.sort((x, y) => x - y);
  return {
    same: { p50: percentile(same, 50), p99: percentile(same, 99) },
    cross: { p50: percentile(cross, 50), p99: percentile(cross, 99) },
    samples,
  };
}
