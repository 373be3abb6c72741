/**
 * Jobs of external tools: claimed under a lease, renewed while they work, finished with one
 * compare-and-set statement that also appends the result to the run's thread and log.
 */
import { eq, getTableColumns, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowCount, rowsOf } from "./rows";
import { runEventCodec } from "../codecs/run-event";
import { jobCodec, type StoredJob } from "../codecs/records";
import { jobs, threads } from "../schema";
import { type JobStatus } from "@/server/domain";
import type { EventRow, MessageInsert } from "./run-writes";
import { jsonRows } from "./json-rows";

const rawJob = z.object({
  id: z.string(),
  tenant_id: z.string(),
  owner_id: z.string(),
  thread_id: z.string(),
  run_id: z.string(),
  agent_id: z.string(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  args: column.json,
  progress: column.json,
  output: column.json,
  error: column.json,
  version: z.number(),
  attempts: z.number(),
});

export interface ClaimedJob {
  id: string;
  tenantId: string;
  ownerId: string;
  threadId: string;
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  /** The tool's arguments, read when the job is worked on: unreadable ones fail that job alone. */
  readArgs(): Record<string, unknown>;
  attempts: number;
}

/**
 * Takes up to `limit` jobs nobody holds (never leased, or their lease ran out) for `owner`, except
 * those it is already working on (`busy`).
 */
export async function claimDueJobs(
  db: Executor,
  owner: string,
  leaseMs: number,
  limit: number,
  busy: readonly string[] = [],
): Promise<ClaimedJob[]> {
  const result = await db.execute(sql`
    update jobs set lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond',
      attempts = attempts + 1, updated_at = now()
    where id in (
      select id from jobs
      where status = 'in_progress' and (lease_until is null or lease_until < now())
        and id <> all(${sql.param([...busy])}::text[])
      order by created_at
      limit ${limit}
      for update skip locked
    )
    returning id, tenant_id, owner_id, thread_id, run_id, agent_id, tool_call_id, tool_name, args, progress, output, error, version, attempts`);
  return rowsOf(result, rawJob).map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    ownerId: r.owner_id,
    threadId: r.thread_id,
    runId: r.run_id,
    agentId: r.agent_id,
    toolCallId: r.tool_call_id,
    toolName: r.tool_name,
    readArgs: () => jobCodec.decode({ args: r.args, progress: r.progress, output: r.output, error: r.error }, r.version).args,
    attempts: r.attempts,
  }));
}

/** Extends the lease (and records progress); false when the job is no longer this owner's to work on. */
export async function renewLease(
  db: Executor,
  job: { id: string; owner: string; leaseMs: number },
  progress?: { step: number; total: number; label: string },
): Promise<boolean> {
  const result = await db.execute(sql`
    update jobs set lease_until = now() + ${job.leaseMs} * interval '1 millisecond',
      progress = coalesce(${progress ? JSON.stringify(progress) : null}::jsonb, progress), updated_at = now()
    where id = ${job.id} and lease_owner = ${job.owner} and status = 'in_progress'
    returning id`);
  return rowCount(result) > 0;
}

/**
 * A stopping instance lets go of the jobs it still works on: another instance takes each at its
 * next poll (and runs it again from the start) instead of after the lease runs out. Returns how many.
 */
export async function releaseLeases(db: Executor, owner: string): Promise<number> {
  const result = await db.execute(sql`
    update jobs set lease_owner = null, lease_until = null, updated_at = now()
    where lease_owner = ${owner} and status = 'in_progress'
    returning id`);
  return rowCount(result);
}

export interface JobOutcome {
  status: Extract<JobStatus, "completed" | "failed">;
  output?: unknown;
  error?: { code: string; message: string };
  /** The thread's new messages (the tool result, the assistant's report). */
  messages: MessageInsert[];
  /** The run's closing events, numbered after its last one by the statement. */
  events: Omit<EventRow, "seq">[];
  /** The run goes on from the result on this instance (its planner continues) instead of ending. */
  goesOnAt?: string;
}

/**
 * Finishes a job once: only while `owner` still holds it. In the same statement it resolves the
 * job's interaction (with its audit entry), appends the messages to the thread and the events to
 * the run's log, and ends the run (or, with `goesOnAt`, marks it running there) — only if the interaction was still waiting: a run that ended
 * meanwhile (its wait closed as expired) gets nothing appended, and the job is `cancelled`.
 * Returns the seq of the first appended event, or undefined when nothing was appended.
 */
export async function finishJob(db: Executor, job: { id: string; owner: string }, outcome: JobOutcome): Promise<number | undefined> {
  const result = await db.execute(sql`
    with waiting as (
      select id from interactions where id = ${job.id} and status = 'pending' for update
    ),
    done as (
      update jobs set
        status = case when exists (select 1 from waiting) then ${outcome.status} else 'cancelled' end,
        output = ${JSON.stringify(outcome.output ?? null)}::jsonb,
        error = ${outcome.error ? JSON.stringify(outcome.error) : null}::jsonb, finished_at = now(), updated_at = now(),
        lease_owner = null, lease_until = null
      where id = ${job.id} and lease_owner = ${job.owner} and status = 'in_progress'
      returning id, tenant_id, thread_id, run_id, exists (select 1 from waiting) as appended
    ),
    resolved as (
      update interactions set status = 'resolved', resolved_at = now(),
        decision = jsonb_build_object('status', ${outcome.status}::text)
      where id in (select id from done where appended) and status = 'pending'
      returning id, tenant_id, run_id
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, null, 'interaction.resolve', 'interaction', id, ${outcome.status}, jsonb_build_object('runId', run_id, 'via', 'job')
      from resolved
    ),
    base as (select coalesce(max(seq), 0) as seq from run_events where run_id = (select run_id from done)),
    said as (
      insert into messages (id, thread_id, run_id, role, content, tool_call_id)
      select m.id, d.thread_id, d.run_id, m.role, m.content, m.tool_call_id
      from (select * from done where appended) d, ${jsonRows(
        outcome.messages.map((m, ord) => ({ id: m.id, role: m.role, content: m.content, tool_call_id: m.toolCallId, ord })),
        "m",
        "id text, role text, content text, tool_call_id text, ord int",
      )}
      order by m.ord
    ),
    logged as (
      insert into run_events (run_id, seq, type, data)
      select d.run_id, (select seq from base) + e.ord, e.type, e.data
      from (select * from done where appended) d, ${jsonRows(
        outcome.events.map((e, index) => ({ type: e.type, data: runEventCodec.encode(e.data), ord: index + 1 })),
        "e",
        "type text, data jsonb, ord int",
      )}
    ),
    ended as (
      update runs set pause_reason = null, updated_at = now(),
        ${
          outcome.goesOnAt
            ? sql`status = 'running', instance_id = ${outcome.goesOnAt}`
            : sql`status = ${outcome.status === "completed" ? "completed" : "failed"},
                error = ${outcome.error ? JSON.stringify(outcome.error) : null}::jsonb, finished_at = now()`
        }
      where id in (select run_id from done where appended) and status = 'paused'
    )
    select (select seq from base) + 1 as first_seq from done where appended`);
  const [row] = rowsOf(result, z.object({ first_seq: column.number }));
  return row?.first_seq;
}

/** A job as read (codecs/records.ts), with its thread's id as the client knows it (`threadClientId`, when it has its own). */
export type JobRow = Omit<typeof jobs.$inferSelect, "args" | "progress" | "output" | "error" | "version"> & StoredJob;

export async function findJob(db: Executor, id: string): Promise<(JobRow & { threadClientId: string | null }) | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(jobs), threadClientId: threads.clientId })
    .from(jobs)
    .leftJoin(threads, eq(threads.id, jobs.threadId))
    .where(eq(jobs.id, id))
    .limit(1);
  if (!row) return undefined;
  const { args, progress, output, error, version, ...rest } = row;
  return { ...rest, ...jobCodec.decode({ args, progress, output, error }, version) };
}
