/**
 * The embedded database in the server's thread vs on a worker thread of its own (issue 17, point 2):
 * the same in-process cycles on both shapes, same run, printed as a ratio.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../server/db/client";
import { seedDemo } from "../server/db/seed";
import { measureGateCycles, measureInProcess, type CycleResult } from "./park-resume";

async function shape(thread: boolean, seconds: number): Promise<CycleResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-bench-thread-"));
  const handle = await openDatabase({ engine: "pglite", dataDir: dir, thread });
  try {
    await seedDemo(handle.db);
    const results: CycleResult[] = [];
    for (const inFlight of [1, 50]) {
      await measureGateCycles(handle.db, inFlight, 1);
      results.push(await measureGateCycles(handle.db, inFlight, seconds));
    }
    for (const inFlight of [1, 50]) {
      await measureInProcess(handle.db, inFlight, 1);
      results.push(await measureInProcess(handle.db, inFlight, seconds));
    }
    return results;
  } finally {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints both shapes' cycles and the threaded one's ratio to the direct one. */
export async function pgliteThreadComparison(seconds: number): Promise<void> {
  const direct = await shape(false, seconds);
  const threaded = await shape(true, seconds);
  console.log("PGlite in the server's thread vs on its own worker thread (cycles/s, same run)");
  for (const [i, d] of direct.entries()) {
    const t = threaded[i]!;
    console.log(
      `  ${d.label.padEnd(40)} ${String(d.inFlight).padStart(2)} in flight: ${d.cyclesPerSecond.toFixed(0).padStart(5)} → ${t.cyclesPerSecond
        .toFixed(0)
        .padStart(5)}  (${(t.cyclesPerSecond / d.cyclesPerSecond).toFixed(2)}×)  failures ${d.failures}/${t.failures}`,
    );
  }
  console.log();
}
