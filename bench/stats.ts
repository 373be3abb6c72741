import { performance } from "node:perf_hooks";

/** The value at percentile `p` of numbers sorted ascending (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** What `keepBusy` measured: each timing's samples (sorted ascending), failed cycles, and how long it ran. */
export interface Busy<K extends string> {
  samples: Record<K, number[]>;
  failures: number;
  elapsedMs: number;
}

/**
 * Runs `cycle` from `inFlight` workers, each starting its next cycle as soon as the last ended,
 * for `seconds`. A cycle reports its timings (ms), or null when it failed.
 */
export async function keepBusy<K extends string>(
  inFlight: number,
  seconds: number,
  cycle: (worker: number) => Promise<Record<K, number> | null>,
): Promise<Busy<K>> {
  const samples = {} as Record<K, number[]>;
  let failures = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      while (performance.now() < deadline) {
        const timing = await cycle(worker);
        if (!timing) {
          failures++;
          continue;
        }
        for (const key of Object.keys(timing) as K[]) (samples[key] ??= []).push(timing[key]);
      }
    }),
  );
  for (const key of Object.keys(samples) as K[]) samples[key].sort((a, b) => a - b);
  return { samples, failures, elapsedMs: performance.now() - start };
}
