/**
 * The memory budget of reading a very long run: four subscribers follow a finished run of 50,000
 * events over tRPC `runs.events` at once, from its first event to its last. The server reads the
 * log a page at a time, so its resident set grows by less than 200 MB, and /api/health answers
 * within a second all along.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, createToken, signIn, type Auth } from "../helpers/http";
import { followToEnd, rssOf, serverWithLongRuns } from "../helpers/long-run";
import { OWN_ENGINES, type OwnServer } from "../helpers/own-server";

const EVENTS = 50_000;
const SUBSCRIBERS = 4;
const RSS_BUDGET = 200 * 1024 * 1024;
const HEALTH_BUDGET_MS = 1_000;

describe.each(OWN_ENGINES)(`${SUBSCRIBERS} subscribers reading a ${EVENTS}-event run on $name`, ({ name }) => {
  let server: OwnServer;
  let runId: string;
  let alice: Auth;

  beforeAll(async () => {
    const setupStarted = Date.now();
    const prepared = await serverWithLongRuns(name, "memory", [EVENTS]);
    server = prepared.server;
    runId = prepared.runs[0]!.runId;
    const cookie = await signIn(server.url, "alice@acme.test");
    alice = { bearer: (await createToken(server.url, cookie, "memory")).token };
    console.log(`memory on ${name}: ${EVENTS} events written and the server started in ${Date.now() - setupStarted} ms`);
  }, 180_000);

  afterAll(async () => {
    await server?.dispose();
  });

  it("streams every event to each subscriber, grows the server's RSS by less than 200 MB, and keeps /api/health under a second", async () => {
    // Warm the path (compilation, pools) on a short read, then take the baseline.
    const warm = await fetch(`${server.url}/api/trpc/runs.timeline?input=${encodeURIComponent(JSON.stringify({ runId }))}`, {
      headers: authHeaders(alice),
    });
    expect(warm.status).toBe(200);
    await warm.arrayBuffer();
    const baseline = rssOf(server.pid);

    let reading = true;
    let peak = baseline;
    const health: number[] = [];
    const failures: string[] = [];
    const sampleRss = (async () => {
      while (reading) {
        peak = Math.max(peak, rssOf(server.pid));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const sampleHealth = (async () => {
      while (reading) {
        const t = performance.now();
        try {
          const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(10_000) });
          await res.arrayBuffer();
          if (res.status !== 200) failures.push(`HTTP ${res.status}`);
        } catch (error) {
          failures.push(String(error));
        }
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    const started = Date.now();
    const reads = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => followToEnd(server.url, alice, runId))).finally(() => {
      reading = false;
    });
    const readMs = Date.now() - started;
    await Promise.all([sampleRss, sampleHealth]);

    for (const read of reads) expect(read).toMatchObject({ count: EVENTS, lastSeq: EVENTS, lastType: "run.completed" });
    const growth = peak - baseline;
    const slowest = Math.max(...health);
    console.log(
      `memory on ${name}: ${SUBSCRIBERS}×${EVENTS} events read in ${readMs} ms (first event after ${reads.map((r) => r.firstEventMs.toFixed(0)).join("/")} ms); ` +
        `RSS ${(baseline / 2 ** 20).toFixed(0)} MB → peak ${(peak / 2 ** 20).toFixed(0)} MB (+${(growth / 2 ** 20).toFixed(0)} MB); ` +
        `/api/health ${health.length} samples, slowest ${slowest.toFixed(0)} ms`,
    );
    expect(failures).toEqual([]);
    expect(health.length).toBeGreaterThan(0);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
    expect(growth).toBeLessThan(RSS_BUDGET);
  }, 120_000);
});
