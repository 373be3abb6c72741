/**
 * PostgreSQL with each statement planned anew vs prepared once per connection (issue 17, point 4):
 * the same in-process cycles on both shapes, same run, printed as a ratio.
 */
import { openDatabase } from "../server/db/client";
import { seedDemo } from "../server/db/seed";
import { createPostgresDatabase } from "../tests/helpers/postgres";
import { measureGateCycles, measureInProcess, type CycleResult } from "./park-resume";

async function cycles(baseUrl: string, prepared: boolean, seconds: number): Promise<CycleResult[]> {
  const database = await createPostgresDatabase(baseUrl);
  const handle = await openDatabase({ engine: "postgres", url: database.url, poolSize: 20, prepared });
  try {
    await seedDemo(handle.db);
    const results: CycleResult[] = [];
    for (const measure of [measureGateCycles, measureInProcess]) {
      for (const inFlight of [1, 50]) {
        await measure(handle.db, inFlight, 1);
        results.push(await measure(handle.db, inFlight, seconds));
      }
    }
    return results;
  } finally {
    await handle.close();
    await database.drop();
  }
}

export async function postgresPreparedComparison(baseUrl: string, seconds: number): Promise<void> {
  const planned = await cycles(baseUrl, false, seconds);
  const prepared = await cycles(baseUrl, true, seconds);
  console.log("PostgreSQL: every statement planned anew (before) vs prepared once per connection (now), cycles/s, same run");
  for (const [i, before] of planned.entries()) {
    const now = prepared[i]!;
    console.log(
      `  ${before.label.padEnd(26)} ${String(before.inFlight).padStart(2)}: ${before.cyclesPerSecond.toFixed(0).padStart(5)} → ${now.cyclesPerSecond.toFixed(0).padStart(5)} (${(now.cyclesPerSecond / before.cyclesPerSecond).toFixed(2)}×)  failures ${before.failures}/${now.failures}`,
    );
  }
  console.log();
}
