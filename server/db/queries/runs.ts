import { and, asc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { runEvents, runs, type MessageRole, type StoredToolCall } from "../schema";

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

export interface Continuation {
  threadId: string;
  tenantId: string;
  ownerId: string;
  agentId: string;
  checkpoint: Record<string, unknown> | null;
  threadState: Record<string, unknown>;
  messages: { id: string; role: MessageRole; content: string; toolCalls: StoredToolCall[] | null; toolCallId: string | null }[];
}

/** A run's continuation as one JSON value — the run, its thread's state and transcript; `runId` is an SQL expression. */
export function continuationOf(runId: SQL): SQL {
  return sql`(
    select json_build_object('threadId', r.thread_id, 'tenantId', r.tenant_id, 'ownerId', r.owner_id, 'agentId', r.agent_id,
      'checkpoint', r.checkpoint, 'threadState', t.state,
      'messages', coalesce((
        select json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content,
          'toolCalls', m.tool_calls, 'toolCallId', m.tool_call_id) order by m.position)
        from messages m where m.thread_id = r.thread_id
      ), '[]'::json))
    from runs r join threads t on t.id = r.thread_id
    where r.id = ${runId})`;
}

/** Everything a parked run needs to go on, in one round trip. */
export async function loadContinuation(db: Executor, runId: string): Promise<Continuation | undefined> {
  const result = await db.execute(sql`select ${continuationOf(sql`${runId}`)} as continuation`);
  const [row] = (result as unknown as { rows: { continuation: Continuation | null }[] }).rows;
  return row?.continuation ?? undefined;
}
