/**
 * Reading a long run: `runs.events` time to first event and the server's RSS growth for a
 * 50,000-event run, against a 10-event run on the same server (the baseline, measured in the same
 * run), and the full read's pace.
 */
import { authHeaders, createToken, signIn, type Auth } from "../tests/helpers/http";
import { followToEnd, rssOf, serverWithLongRuns } from "../tests/helpers/long-run";
import type { Engine } from "../tests/helpers/own-server";

export const LONG_RUN_EVENTS = 50_000;
const BASELINE_EVENTS = 10;
const SAMPLES = Number(process.env.BENCH_EVENTS_SAMPLES ?? 20);
const READERS = 4;

export interface EventsResult {
  engine: Engine;
  /** Time to the first event, p50 and p99 in ms. */
  ttfe: { long: { p50: number; p99: number }; baseline: { p50: number; p99: number } };
  /** One reader, the whole long run. */
  fullReadMs: number;
  eventsPerSecond: number;
  /** RSS growth (bytes) while READERS read the long run at once, and while they read the short one. */
  rssGrowth: { long: number; baseline: number };
  concurrentReadMs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** Time to the first event: opens the subscription, waits for the first logged event, closes it. */
async function firstEvent(url: string, auth: Auth, runId: string): Promise<number> {
  const controller = new AbortController();
  const started = performance.now();
  const res = await fetch(`${url}/api/trpc/runs.events?input=${encodeURIComponent(JSON.stringify({ runId }))}`, {
    headers: { accept: "text/event-stream", ...authHeaders(auth) },
    signal: controller.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before its first event");
      buffer += value;
      if (buffer.includes('"seq"')) return performance.now() - started;
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
}

/** Peak RSS growth over the baseline while `readers` read `runId` to its end at once. */
async function concurrentReads(url: string, pid: number, auth: Auth, runId: string, readers: number) {
  const baseline = rssOf(pid);
  let peak = baseline;
  let reading = true;
  const sampling = (async () => {
    while (reading) {
      peak = Math.max(peak, rssOf(pid));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const started = performance.now();
  const reads = await Promise.all(Array.from({ length: readers }, () => followToEnd(url, auth, runId))).finally(() => {
    reading = false;
  });
  const ms = performance.now() - started;
  await sampling;
  for (const read of reads) if (read.lastType !== "run.completed") throw new Error(`a read ended at ${read.lastType}`);
  return { growth: peak - baseline, ms };
}

export async function measureEventsFeed(engine: Engine, postgresUrl: string): Promise<EventsResult> {
  const { server, runs } = await serverWithLongRuns(engine, `bench-events`, [LONG_RUN_EVENTS, BASELINE_EVENTS], {
    env: { LOG_LEVEL: "warn" },
    postgresUrl,
  });
  try {
    const [long, short] = runs.map((r) => r.runId) as [string, string];
    const cookie = await signIn(server.url, "alice@acme.test");
    const auth: Auth = { bearer: (await createToken(server.url, cookie, "bench-events")).token };
    // Warm both paths, then sample them alternately so drift hits both alike.
    await firstEvent(server.url, auth, short);
    await firstEvent(server.url, auth, long);
    const ttfeLong: number[] = [];
    const ttfeShort: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      ttfeShort.push(await firstEvent(server.url, auth, short));
      ttfeLong.push(await firstEvent(server.url, auth, long));
    }
    ttfeLong.sort((a, b) => a - b);
    ttfeShort.sort((a, b) => a - b);
    const full = await followToEnd(server.url, auth, long);
    const fullStarted = performance.now();
    await followToEnd(server.url, auth, long);
    const fullReadMs = performance.now() - fullStarted;
    if (full.count !== LONG_RUN_EVENTS) throw new Error(`read ${full.count} of ${LONG_RUN_EVENTS} events`);
    const baselineReads = await concurrentReads(server.url, server.pid, auth, short, READERS);
    const longReads = await concurrentReads(server.url, server.pid, auth, long, READERS);
    return {
      engine,
      ttfe: {
        long: { p50: percentile(ttfeLong, 50), p99: percentile(ttfeLong, 99) },
        baseline: { p50: percentile(ttfeShort, 50), p99: percentile(ttfeShort, 99) },
      },
      fullReadMs,
      eventsPerSecond: (LONG_RUN_EVENTS / fullReadMs) * 1000,
      rssGrowth: { long: longReads.growth, baseline: baselineReads.growth },
      concurrentReadMs: longReads.ms,
    };
  } finally {
    await server.dispose();
  }
}

export function printEventsFeed(results: EventsResult[]) {
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  console.log(
    `runs.events on a ${LONG_RUN_EVENTS}-event run, against a ${BASELINE_EVENTS}-event run on the same server (${SAMPLES} samples each)`,
  );
  console.log(
    "engine     TTFE p50/p99 ms: long run      10-event run   ratio p50   full read (1 reader)   RSS growth, 4 readers: long / 10-event",
  );
  for (const r of results) {
    console.log(
      `${r.engine.padEnd(10)} ${r.ttfe.long.p50.toFixed(1).padStart(14)}/${r.ttfe.long.p99.toFixed(1).padEnd(8)} ${r.ttfe.baseline.p50.toFixed(1).padStart(7)}/${r.ttfe.baseline.p99.toFixed(1).padEnd(7)} ${(r.ttfe.long.p50 / r.ttfe.baseline.p50).toFixed(2).padStart(8)}   ${r.fullReadMs.toFixed(0).padStart(6)} ms (${r.eventsPerSecond.toFixed(0)} ev/s)   ${mb(r.rssGrowth.long)} / ${mb(r.rssGrowth.baseline)} (4 readers took ${r.concurrentReadMs.toFixed(0)} ms)`,
    );
  }
  console.log();
}
