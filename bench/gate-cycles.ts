/**
 * The in-process gate cycle on its own, for a CPU profile of it (`BENCH_PROFILE=gate npm run
 * bench:profile` starts this under --cpu-prof): the embedded database as the server opens it (its
 * own thread, prepared statements, a folder), seeded, a second of warm-up, then `BENCH_SECONDS` of
 * gate cycles at `BENCH_IN_FLIGHT`. Prints the cycles/s and the load's window on the monotonic
 * clock as one JSON line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../server/db/client";
import { seedDemo } from "../server/db/seed";
import { measureGateCycles } from "./park-resume";
import { monotonicMicros } from "./profile";

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 8);
  const inFlight = Number(process.argv[3] ?? 1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-gate-cycles-"));
  const handle = await openDatabase({ engine: "pglite", dataDir: dir, thread: true });
  try {
    await seedDemo(handle.db);
    await measureGateCycles(handle.db, inFlight, 1);
    const from = monotonicMicros();
    const result = await measureGateCycles(handle.db, inFlight, seconds);
    const to = monotonicMicros();
    console.log(JSON.stringify({ cyclesPerSecond: result.cyclesPerSecond, failures: result.failures, from, to }));
  } finally {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
