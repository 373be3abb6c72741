/**
 * PostgreSQL with each statement planned anew vs prepared once per connection (issue 17, point 4):
 * the same in-process cycles on both shapes, same run, printed as a ratio.
 */
import { cyclesWith } from "./one-plan";

export async function postgresPreparedComparison(baseUrl: string, seconds: number): Promise<void> {
  const planned = await cyclesWith("postgres", baseUrl, { prepared: false }, seconds);
  const prepared = await cyclesWith("postgres", baseUrl, { prepared: true }, seconds);
  console.log("PostgreSQL: every statement planned anew (before) vs prepared once per connection (now), cycles/s, same run");
  for (const [i, before] of planned.entries()) {
    const now = prepared[i]!;
    console.log(
      `  ${before.label.padEnd(26)} ${String(before.inFlight).padStart(2)}: ${before.cyclesPerSecond.toFixed(0).padStart(5)} → ${now.cyclesPerSecond.toFixed(0).padStart(5)} (${(now.cyclesPerSecond / before.cyclesPerSecond).toFixed(2)}×)  failures ${before.failures}/${now.failures}`,
    );
  }
  console.log();
}
