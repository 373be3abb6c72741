import { and, asc, eq, gt } from "drizzle-orm";
import type { Executor } from "../client";
import { runEvents, runs, type RunStatus } from "../schema";

export interface NewRun {
  id: string;
  tenantId: string;
  threadId: string;
  ownerId: string;
  agentId: string;
  transportRunId: string;
  status: RunStatus;
  parentRunId?: string;
}

export async function insertRun(db: Executor, run: NewRun): Promise<void> {
  await db.insert(runs).values(run);
}

export async function findRun(db: Executor, runId: string) {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  return row;
}

export async function updateRun(
  db: Executor,
  runId: string,
  changes: {
    status?: RunStatus;
    checkpoint?: Record<string, unknown>;
    error?: { code: string; message: string } | null;
    finishedAt?: Date;
  },
): Promise<void> {
  await db
    .update(runs)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(runs.id, runId));
}

export interface StoredRunEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export async function insertRunEvents(
  db: Executor,
  runId: string,
  events: readonly { seq: number; type: string; data: Record<string, unknown> }[],
): Promise<void> {
  if (events.length === 0) return;
  await db.insert(runEvents).values(events.map((e) => ({ ...e, runId })));
}

export async function listRunEvents(db: Executor, runId: string, afterSeq = 0): Promise<StoredRunEvent[]> {
  return db
    .select({ seq: runEvents.seq, type: runEvents.type, data: runEvents.data, createdAt: runEvents.createdAt })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, afterSeq)))
    .orderBy(asc(runEvents.seq));
}
