/**
 * `BENCH_ONLY=http-cycles`: only park → resume over HTTP, at 1 and 50 threads, on each engine — the
 * "end to end over HTTP" rows of `pause-cost` without the rest, so a change of the HTTP edge can be
 * measured A/B in a few seconds per engine.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { createToken, signIn } from "../tests/helpers/http";
import { createPostgresDatabase } from "../tests/helpers/postgres";
import { startServer } from "../tests/helpers/server";
import { measureOverHttp, type CycleResult } from "./park-resume";

export type HttpEngine = "pglite" | "postgres";

/** CPU time per cycle, in ms (Linux only): what each part costs, less blurred by a busy machine than cycles/s. */
export interface CpuPerCycle {
  /** The server's main thread: the edge and the runtime. */
  main: number;
  /** The whole server process (with the embedded database's thread). */
  server: number;
  /** This process: the clients. */
  clients: number;
}

export interface HttpCycles extends CycleResult {
  cpu?: CpuPerCycle;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** A thread's (or with no `tid`, a process's) CPU time so far (user + system), in ms, from /proc; undefined where there is none. */
function cpuMs(pid: number, tid?: number): number | undefined {
  try {
    const stat = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** One server on `engine`'s database (a fresh one on PostgreSQL), the same settings as `pause-cost`'s. */
export async function measureHttpCycles(engine: HttpEngine, postgresUrl: string, seconds: number): Promise<HttpCycles[]> {
  const database = engine === "postgres" ? await createPostgresDatabase(postgresUrl) : undefined;
  const env: Record<string, string> = {
    HARBOR_BENCH: "1",
    HARBOR_STREAM_CHUNK_MS: "0",
    LOG_LEVEL: "warn",
    HARBOR_MAX_ACTIVE_RUNS_PER_USER: "100",
  };
  if (database) Object.assign(env, { DATABASE_URL: database.url, HARBOR_SEED_DEMO: "1", AUTH_SECRET: randomBytes(32).toString("hex") });
  const server = await startServer(env, `bench-http-${engine}`);
  try {
    const { token } = await createToken(server.url, await signIn(server.url, "alice@acme.test"), "bench");
    const results: HttpCycles[] = [];
    for (const inFlight of [1, 50]) {
      await measureOverHttp(server.url, token, inFlight, 1);
      const read = () => ({ main: cpuMs(server.pid, server.pid), server: cpuMs(server.pid), clients: process.cpuUsage() });
      const before = read();
      const t0 = performance.now();
      const r = await measureOverHttp(server.url, token, inFlight, seconds);
      const after = read();
      const cycles = Math.round((r.cyclesPerSecond * (performance.now() - t0)) / 1000);
      const clients = process.cpuUsage(before.clients);
      const cpu =
        before.main !== undefined && after.main !== undefined && before.server !== undefined && after.server !== undefined && cycles > 0
          ? {
              main: (after.main - before.main) / cycles,
              server: (after.server - before.server) / cycles,
              clients: (clients.user + clients.system) / 1000 / cycles,
            }
          : undefined;
      results.push(cpu ? { ...r, cpu } : r);
    }
    return results;
  } finally {
    await server.stop();
    await database?.drop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
}

export function printHttpCycles(engine: HttpEngine, results: readonly HttpCycles[]): void {
  console.log(`Park → resume over HTTP on ${engine === "pglite" ? "PGlite" : "PostgreSQL"}`);
  console.log("in flight  cycles/s   park p50/p99 ms   resume p50/p99 ms   failures   CPU ms/cycle: server's main thread, server, clients");
  for (const r of results) {
    console.log(
      `${String(r.inFlight).padStart(9)} ${r.cyclesPerSecond.toFixed(1).padStart(9)}   ${`${r.park.p50.toFixed(1)}/${r.park.p99.toFixed(1)}`.padStart(15)}   ${`${r.resume.p50.toFixed(1)}/${r.resume.p99.toFixed(1)}`.padStart(17)}   ${String(r.failures).padStart(8)}   ${r.cpu ? `${r.cpu.main.toFixed(2)}, ${r.cpu.server.toFixed(2)}, ${r.cpu.clients.toFixed(2)}` : ""}`,
    );
  }
  console.log();
}
