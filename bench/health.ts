/**
 * Health under a burst: `/api/health` and `/api/health/ready` timed from a probe process of their
 * own while 200 chats arrive at once (as the load test sends them), against the same probe on the
 * idle server in the same run. A balancer with a short timeout must get its answer either way.
 */
import { randomUUID } from "node:crypto";
import { createToken, signInAll } from "../tests/helpers/http";
import { probeHealth } from "../tests/helpers/health-probe";
import { prepareDatabase, type Engine } from "../tests/helpers/own-server";
import { startServer } from "../tests/helpers/server";
import { percentile } from "./stats";
import { body } from "./tools-and-waits";

export interface HealthUnderLoad {
  engine: Engine;
  phase: "idle" | "200-chat burst";
  checks: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
  /** Chats the instance shed (503 OVERLOADED) and that were sent again. */
  shed: number;
}

const CHATS = 200;
const EMAILS = ["alice@acme.test", "bob@acme.test", "carol@acme.test", "mallory@globex.test"];

function summarize(engine: Engine, phase: HealthUnderLoad["phase"], checks: { status: number; ms: number }[], shed = 0): HealthUnderLoad {
  const ms = checks.map((c) => c.ms).sort((a, b) => a - b);
  return {
    engine,
    phase,
    checks: ms.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.at(-1) ?? 0,
    failures: checks.filter((c) => c.status !== 200).length,
    shed,
  };
}

/** One chat, sent again after its Retry-After while the instance sheds it; how many times it was shed. */
async function chat(url: string, bearer: string, message: string): Promise<number> {
  for (let shed = 0; ; shed++) {
    const res = await fetch(`${url}/api/agents/concierge/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      body: body(randomUUID(), [{ id: randomUUID(), role: "user", content: message }]),
    });
    if (res.status !== 503) {
      await res.text();
      return shed;
    }
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function measureHealthUnderLoad(engine: Engine, postgresUrl: string): Promise<HealthUnderLoad[]> {
  const database = await prepareDatabase(engine, undefined, postgresUrl);
  const server = await startServer(
    { ...database.env, HARBOR_STREAM_CHUNK_MS: "1", HARBOR_STEP_MS: "150", HARBOR_MAX_ACTIVE_RUNS: "40", LOG_LEVEL: "warn" },
    `bench-health-${engine}`,
  );
  try {
    const cookies = await signInAll(server.url, EMAILS);
    const tokens = await Promise.all(cookies.map(async (cookie) => (await createToken(server.url, cookie, "bench")).token));
    await chat(server.url, tokens[0]!, "hello"); // warm the routes the burst takes
    const paths = ["/api/health", "/api/health/ready"];

    const idle = await probeHealth(server.url, paths);
    await new Promise((r) => setTimeout(r, 3_000));
    const idleChecks = await idle.stop();

    const busy = await probeHealth(server.url, paths);
    const shed = await Promise.all(
      Array.from({ length: CHATS }, (_, i) =>
        chat(server.url, tokens[i % tokens.length]!, i < 20 ? "count slowly to 5" : i % 3 === 0 ? "what can you do" : "hello"),
      ),
    );
    const busyChecks = await busy.stop();
    return [
      summarize(engine, "idle", idleChecks),
      summarize(
        engine,
        "200-chat burst",
        busyChecks,
        shed.reduce((a, b) => a + b, 0),
      ),
    ];
  } finally {
    await server.stop();
    await database.drop();
  }
}

/** Prints each engine's rows, the burst's p99 as a ratio of idle, and the bound a balancer accepts. */
export function printHealthUnderLoad(results: readonly HealthUnderLoad[]): void {
  const BOUND_MS = 1_000;
  console.log("\nHealth under load: /api/health and /ready from a probe process, idle vs during a 200-chat burst");
  console.log("engine     phase            checks   p50 ms   p99 ms   max ms  failures  shed   p99 burst/idle");
  for (const r of results) {
    const idle = results.find((i) => i.engine === r.engine && i.phase === "idle")!;
    const ratio = r.phase === "idle" ? "" : (r.p99 / Math.max(1, idle.p99)).toFixed(1);
    console.log(
      `${r.engine.padEnd(10)} ${r.phase.padEnd(15)} ${String(r.checks).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.max).padStart(8)} ${String(r.failures).padStart(9)} ${String(r.shed).padStart(5)}   ${ratio}`,
    );
    if (r.phase !== "idle") {
      console.log(
        `  → ${r.engine}: max ${r.max} ms during the burst — ${r.max < BOUND_MS ? "meets" : "MISSES"} the < ${BOUND_MS} ms bound`,
      );
    }
  }
}
