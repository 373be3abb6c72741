import { and, asc, eq, gt } from "drizzle-orm";
import type { Executor } from "../client";
import { runEvents, runs } from "../schema";

export async function findRun(db: Executor, runId: string) {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  return row;
}

export interface StoredRunEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export async function listRunEvents(db: Executor, runId: string, afterSeq = 0): Promise<StoredRunEvent[]> {
  return db
    .select({ seq: runEvents.seq, type: runEvents.type, data: runEvents.data, createdAt: runEvents.createdAt })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, afterSeq)))
    .orderBy(asc(runEvents.seq));
}
