/**
 * Prepared statements re-planned as PostgreSQL chooses vs kept to one plan each (`plan_cache_mode =
 * force_generic_plan`): the same in-process cycles on both engines, same run, printed as a ratio.
 */
import { openDatabase, type OpenOptions } from "../server/db/client";
import { seedDemo } from "../server/db/seed";
import { createPostgresDatabase } from "../tests/helpers/postgres";
import { gateAndEmailCycles, type CycleResult } from "./park-resume";

/** The in-process cycles (gate only, email; 1 and 50 in flight) on a fresh database planned as `planning` says. */
export async function cyclesWith(
  engine: "pglite" | "postgres",
  baseUrl: string,
  planning: { prepared?: boolean; onePlan?: boolean },
  seconds: number,
): Promise<CycleResult[]> {
  const database = engine === "postgres" ? await createPostgresDatabase(baseUrl) : undefined;
  const options: OpenOptions = database
    ? { engine: "postgres", url: database.url, poolSize: 20, ...planning }
    : { engine: "pglite", thread: true, ...planning };
  const handle = await openDatabase(options);
  try {
    await seedDemo(handle.db);
    return await gateAndEmailCycles(handle.db, seconds);
  } finally {
    await handle.close();
    await database?.drop();
  }
}

export async function onePlanComparison(baseUrl: string, seconds: number): Promise<void> {
  for (const engine of ["pglite", "postgres"] as const) {
    const replanned = await cyclesWith(engine, baseUrl, { onePlan: false }, seconds);
    const onePlan = await cyclesWith(engine, baseUrl, { onePlan: true }, seconds);
    console.log(`${engine}: prepared statements re-planned as PostgreSQL chooses (before) vs one plan each (now), cycles/s, same run`);
    for (const [i, before] of replanned.entries()) {
      const now = onePlan[i]!;
      console.log(
        `  ${before.label.padEnd(26)} ${String(before.inFlight).padStart(2)}: ${before.cyclesPerSecond.toFixed(0).padStart(5)} → ${now.cyclesPerSecond.toFixed(0).padStart(5)} (${(now.cyclesPerSecond / before.cyclesPerSecond).toFixed(2)}×)  failures ${before.failures}/${now.failures}`,
      );
    }
  }
  console.log();
}
