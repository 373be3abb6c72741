/** Where a run's trace goes on: its first stretch's `traceparent`, stored only when tracing is on. */
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../client";
import { runs } from "../schema";

export async function findTraceParent(db: Executor, runId: string): Promise<string | undefined> {
  const [row] = await db.select({ traceParent: runs.traceParent }).from(runs).where(eq(runs.id, runId));
  return row?.traceParent ?? undefined;
}

/** Stores the run's trace context unless it has one (a run's first stretch sets it once). */
export async function saveTraceParent(db: Executor, runId: string, traceParent: string): Promise<void> {
  await db
    .update(runs)
    .set({ traceParent })
    .where(and(eq(runs.id, runId), isNull(runs.traceParent)));
}
