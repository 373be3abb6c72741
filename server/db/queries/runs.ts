import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowCount, rowsOf } from "./rows";
import { checkpointCodec } from "../codecs/checkpoint";
import { continuationCodec, type Continuation } from "../codecs/continuation";
import { runEventCodec } from "../codecs/run-event";
import { runs } from "../schema";
import { hydratedData } from "./event-storage";
import {
  ERROR_CODES,
  PAUSE_REASONS,
  RUN_STATUSES,
  type Checkpoint,
  type ErrorCode,
  type RunEvent,
  type RunStatus,
  type StoredInstruction,
} from "@/server/domain";

/** A run, its checkpoint read only where it is needed: an unreadable one fails that, not a cancel or a feed. */
export type RunRow = Omit<typeof runs.$inferSelect, "checkpoint"> & { readCheckpoint(): Checkpoint | null };

export async function findRun(db: Executor, runId: string): Promise<RunRow | undefined> {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!row) return undefined;
  const { checkpoint, ...run } = row;
  return { ...run, readCheckpoint: () => (checkpoint == null ? null : checkpointCodec.decode(checkpoint)) };
}

export interface StoredRunEvent {
  seq: number;
  type: string;
  data: RunEvent;
  createdAt: Date;
}

/** A run's events after `afterSeq`, oldest first, at most `limit` of them; snapshots come with their transcript. */
export async function listRunEvents(db: Executor, runId: string, afterSeq = 0, limit?: number): Promise<StoredRunEvent[]> {
  return (await pageOfRunEvents(db, runId, afterSeq, limit)).map((read) => read());
}

/** A stored event not read yet: its data is decoded only when it is called. */
export type UnreadRunEvent = () => StoredRunEvent;

/**
 * `listRunEvents` for a reader that sends a long log out a page at a time. Each event comes as one
 * line of JSON text and is parsed when it is read, so a page waiting to be sent holds strings, and
 * what reading makes dies young. Measured with four readers of a 50,000-event run: parsing pages
 * of 500 up front, with a row schema of unions, grew the heap's old generation by ~190 MB of
 * garbage before V8 collected it; this way, in pages of 100, by 60–90 MB.
 */
export async function pageOfRunEvents(db: Executor, runId: string, afterSeq: number, limit?: number): Promise<UnreadRunEvent[]> {
  const result = await db.execute(sql`
    select json_build_object('seq', e.seq, 'type', e.type, 'at', floor(extract(epoch from e.created_at) * 1000), 'data', ${hydratedData})::text as line
    from run_events e
    where e.run_id = ${runId} and e.seq > ${afterSeq}
    order by e.seq
    limit ${limit ?? null}`);
  return rowsOf(result, storedLine).map(({ line }) => () => {
    const row = storedEvent.parse(JSON.parse(line));
    return { seq: row.seq, type: row.type, data: runEventCodec.decode(row.data), createdAt: new Date(row.at) };
  });
}

const storedLine = z.object({ line: z.string() });
const storedEvent = z.object({ seq: z.number(), type: z.string(), at: z.number(), data: z.unknown() });

export { StoredContinuation, type Continuation } from "../codecs/continuation";

/** A run's continuation as one JSON value — the run, its thread's state and transcript; `runId` is an SQL expression. */
export function continuationOf(runId: SQL): SQL {
  return sql`(
    select json_build_object('threadId', r.thread_id, 'priority', r.priority, 'tenantId', r.tenant_id, 'ownerId', r.owner_id, 'agentId', r.agent_id,
      'checkpoint', r.checkpoint, 'threadState', t.state,
      'messages', coalesce((
        select json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content,
          'toolCalls', m.tool_calls, 'toolCallId', m.tool_call_id) order by m.position)
        from messages m where m.thread_id = r.thread_id and m.superseded_at_position is null
      ), '[]'::json),
      'ahead', coalesce((
        select json_agg(o.id order by o.created_at, o.id) from runs o
        where o.thread_id = r.thread_id and o.status in ('queued', 'running') and (o.created_at, o.id) < (r.created_at, r.id)
      ), '[]'::json))
    from runs r join threads t on t.id = r.thread_id
    where r.id = ${runId})`;
}

/** Made once, not per call (a new schema is compiled again at its first parse). */
const continuationRow = z.object({ continuation: column.json });
const seqRow = z.object({ seq: column.number });

/** Everything a parked run needs to go on, in one round trip. */
export async function loadContinuation(db: Executor, runId: string): Promise<Continuation | undefined> {
  const result = await db.execute(sql`select ${continuationOf(sql`${runId}`)} as continuation`);
  const [row] = rowsOf(result, continuationRow);
  return row?.continuation == null ? undefined : continuationCodec.decode(row.continuation);
}

/** The seq of a run's last stored event (0 when it has none). */
export async function lastSeq(db: Executor, runId: string): Promise<number> {
  const result = await db.execute(sql`select coalesce(max(seq), 0) as seq from run_events where run_id = ${runId}`);
  return rowsOf(result, seqRow)[0]?.seq ?? 0;
}

/** A run's children (started by it), for cascading a cancel. */
export async function childRunIds(db: Executor, runId: string): Promise<string[]> {
  const result = await db.execute(sql`
    with recursive tree as (
      select id from runs where parent_run_id = ${runId}
      union
      select r.id from runs r join tree t on r.parent_run_id = t.id
    )
    select id from tree`);
  return rowsOf(result, z.object({ id: z.string() })).map((r) => r.id);
}

export async function setPriority(db: Executor, runId: string, priority: number): Promise<void> {
  await db.execute(sql`update runs set priority = ${priority}, updated_at = now() where id = ${runId}`);
}

/** Runs of a thread that execute or wait to (status `queued` or `running`), oldest first. */
export async function activeRunsOnThread(db: Executor, threadId: string): Promise<string[]> {
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.threadId, threadId), inArray(runs.status, ["queued", "running"])))
    .orderBy(asc(runs.createdAt), asc(runs.id));
  return rows.map((r) => r.id);
}

/** How a thread's latest run stands: its status, and why it failed when it did. */
export interface LatestRun {
  runId: string;
  status: RunStatus;
  error: { code: ErrorCode; message: string } | null;
}

/**
 * A thread's runs as a page opening it needs them, in one statement: those still queued or running
 * (oldest first), and its latest run — which tells how the conversation's last run ended when it
 * ended while nobody watched (its instance died, and a survivor failed it).
 */
export async function threadRuns(db: Executor, threadId: string): Promise<{ liveRunIds: string[]; latestRun: LatestRun | null }> {
  const result = await db.execute(sql`
    with latest as (select id from runs where thread_id = ${threadId} order by created_at desc, id desc limit 1)
    select r.id, r.status, r.error, r.id in (select id from latest) as latest
    from runs r
    where r.thread_id = ${threadId} and (r.status in ('queued', 'running') or r.id in (select id from latest))
    order by r.created_at, r.id`);
  const rows = rowsOf(
    result,
    z.object({
      id: z.string(),
      status: z.enum(RUN_STATUSES),
      error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }).nullable(),
      latest: z.boolean(),
    }),
  );
  const latest = rows.find((r) => r.latest);
  return {
    liveRunIds: rows.filter((r) => r.status === "queued" || r.status === "running").map((r) => r.id),
    latestRun: latest ? { runId: latest.id, status: latest.status, error: latest.error } : null,
  };
}

/**
 * Keeps a steering instruction with a parked run — or one handed back to the cluster's queue by a
 * stopping instance — in its checkpoint, for its first safe point after it goes on, also after a
 * restart. At most `max` wait; `held` is false when the run is full, or neither parked nor handed back.
 */
export async function holdSteering(db: Executor, runId: string, stored: StoredInstruction, max: number): Promise<{ held: boolean }> {
  const result = await db.execute(sql`
    update runs set updated_at = now(), checkpoint = jsonb_set(
      coalesce(checkpoint, ${checkpointCodec.emptyJson}::jsonb), '{steering}', coalesce(checkpoint->'steering', '[]'::jsonb) || ${JSON.stringify([stored])}::jsonb)
    where id = ${runId} and (status = 'paused' or (status = 'queued' and checkpoint ? 'handoff'))
      and jsonb_array_length(coalesce(checkpoint->'steering', '[]'::jsonb)) < ${Number.isFinite(max) ? max : 2_147_483_647}
    returning id`);
  return { held: rowCount(result) > 0 };
}

/** How much of a run's input a listing carries: enough to tell runs apart, never a whole pasted document. */
const INPUT_CHARS = 280;

export interface RunListFilter {
  tenantId: string;
  status?: string;
  reason?: string;
  /** Only this owner's runs (a member's view); all of the tenant's otherwise. */
  ownerId?: string;
  runId?: string;
  /** Free text: a run id prefix, or a case-insensitive part of its input, goal, thread title, owner's name or agent id. */
  q?: string;
  limit?: number;
}

/**
 * A run's own input, `r` being the run: the first message a person wrote for it, or the one it holds
 * until its turn. Found by the run (`messages_run_user_idx`), never by scanning its thread. A run
 * that answers again (Regenerate, Retry) wrote none: the person's last message before its reply,
 * found by position in its thread (`messages_thread_position_idx`).
 */
const runInputOf = sql`coalesce(
  (select m.content from messages m where m.run_id = r.id and m.role = 'user' order by m.position limit 1),
  r.checkpoint->'pendingInput'->0->>'content',
  (select p.content from messages p where p.thread_id = r.thread_id and p.role = 'user'
    and p.position < (select min(o.position) from messages o where o.thread_id = r.thread_id and o.run_id = r.id)
    order by p.position desc limit 1))`;

/** The most runs one listing answers. */
const MAX_LISTED = 500;

/**
 * Runs of a tenant, newest first, with their owner's name and how many children each started; each
 * names its thread by the id the client knows. The page of runs is chosen first (newest first, by
 * `runs_tenant_created_idx`), and only its rows are labelled and counted: a tenant's long history
 * costs the console nothing until it searches it. Statements are prepared with one generic plan, so
 * the statement names only the filters given, and its page size is part of its text: a plan made
 * for "some filter, some limit" read every run of the tenant.
 */
export async function listRuns(db: Executor, filter: RunListFilter) {
  const q = filter.q?.trim() || null;
  const limit = Math.min(MAX_LISTED, Math.max(1, Math.trunc(filter.limit ?? 200)));
  const where = [sql`r.tenant_id = ${filter.tenantId}`];
  if (filter.status) where.push(sql`r.status = ${filter.status}`);
  if (filter.reason) where.push(sql`r.pause_reason = ${filter.reason}`);
  if (filter.ownerId) where.push(sql`r.owner_id = ${filter.ownerId}`);
  if (filter.runId) where.push(sql`r.id = ${filter.runId}`);
  if (q) {
    where.push(sql`(left(r.id, length(${q})) = ${q}
      or position(lower(${q}) in lower(coalesce(t.title, ''))) > 0
      or position(lower(${q}) in lower(coalesce(r.checkpoint->>'goal', ''))) > 0
      or position(lower(${q}) in lower(coalesce(u.name, ''))) > 0
      or position(lower(${q}) in lower(r.agent_id)) > 0
      or position(lower(${q}) in lower(coalesce(${runInputOf}, ''))) > 0)`);
  }
  const result = await db.execute(sql`
    with page as (
      select r.id, r.thread_id, r.owner_id, r.agent_id, r.status, r.pause_reason, r.priority, r.parent_run_id, r.instance_id, r.error,
        r.created_at, r.updated_at, r.finished_at, r.input_tokens, r.output_tokens, r.checkpoint,
        coalesce(t.client_id, r.thread_id) as client_thread_id, t.title as thread_title, u.name as owner_name
      from runs r left join users u on u.id = r.owner_id left join threads t on t.id = r.thread_id
      where ${sql.join(where, sql` and `)}
      order by r.created_at desc
      limit ${sql.raw(String(limit))}
    )
    select r.id, r.client_thread_id as thread_id, r.owner_id, r.owner_name, r.agent_id, r.status, r.pause_reason, r.priority,
      r.parent_run_id, r.instance_id, r.error, r.created_at, r.updated_at, r.finished_at, r.input_tokens, r.output_tokens,
      r.thread_title, r.checkpoint->>'goal' as goal, left(${runInputOf}, ${INPUT_CHARS}) as input,
      (select count(*) from runs c where c.parent_run_id = r.id)::int as child_count
    from page r
    order by r.created_at desc`);
  const row = z.object({
    id: z.string(),
    thread_id: z.string(),
    owner_id: z.string(),
    owner_name: z.string().nullable(),
    agent_id: z.string(),
    status: z.enum(RUN_STATUSES),
    pause_reason: z.enum(PAUSE_REASONS).nullable(),
    priority: z.number(),
    parent_run_id: z.string().nullable(),
    instance_id: z.string().nullable(),
    error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }).nullable(),
    created_at: column.date,
    updated_at: column.date,
    finished_at: column.date.nullable(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    thread_title: z.string().nullable(),
    goal: z.string().nullable(),
    input: z.string().nullable(),
    child_count: z.number(),
  });
  return rowsOf(result, row).map((r) => ({
    runId: r.id,
    threadId: r.thread_id,
    ownerId: r.owner_id,
    ownerName: r.owner_name,
    agentId: r.agent_id,
    status: r.status,
    pauseReason: r.pause_reason,
    priority: r.priority,
    parentRunId: r.parent_run_id,
    childCount: r.child_count,
    /** The instance executing the run (or that last did). */
    instanceId: r.instance_id,
    /** Why a failed run failed (the code a client switches on). */
    error: r.error,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
    /** Tokens a model spent on the run. */
    usage: { inputTokens: r.input_tokens, outputTokens: r.output_tokens },
    /** The thread's title, and the goal an operator redirected the run to (if any). */
    threadTitle: r.thread_title,
    goal: r.goal,
    /** What started this run (the first characters of it): its own message, not its thread's first. */
    input: r.input,
  }));
}

/** Tokens models spent on a tenant's runs (one owner's, when given) since a moment (all time without). */
export async function sumUsage(db: Executor, filter: { tenantId: string; ownerId?: string; since?: Date }) {
  const result = await db.execute(sql`
    select coalesce(sum(input_tokens), 0)::bigint as input_tokens, coalesce(sum(output_tokens), 0)::bigint as output_tokens,
      count(*) filter (where input_tokens + output_tokens > 0)::int as runs
    from runs
    where tenant_id = ${filter.tenantId}
      and (${filter.ownerId ?? null}::text is null or owner_id = ${filter.ownerId ?? null})
      and (${filter.since?.toISOString() ?? null}::timestamptz is null or created_at >= ${filter.since?.toISOString() ?? null}::timestamptz)`);
  // bigint sums arrive as strings from node-postgres; token counts stay far below 2^53.
  const [row] = rowsOf(result, z.object({ input_tokens: column.number, output_tokens: column.number, runs: z.number() }));
  return { inputTokens: row?.input_tokens ?? 0, outputTokens: row?.output_tokens ?? 0, runs: row?.runs ?? 0 };
}

/**
 * A queued run's turn came: its held-back messages join the thread, in the same statement that
 * marks it running — unless the thread now waits on an open interaction (then nothing is written
 * and `joined` is false: new input waits until it is answered).
 */
export async function joinHeldInput(db: Executor, runId: string): Promise<{ joined: boolean }> {
  const result = await db.execute(sql`
    with run as (
      select r.id, r.thread_id, r.checkpoint->'pendingInput' as input from runs r
      where r.id = ${runId} and r.checkpoint ? 'pendingInput'
        and not exists (select 1 from interactions i where i.thread_id = r.thread_id and i.status = 'pending' and i.kind <> 'external_wait')
    ),
    joined as (
      insert into messages (id, thread_id, run_id, role, content)
      select m.item->>'id', run.thread_id, run.id, 'user', m.item->>'content'
      from run, jsonb_array_elements(run.input) with ordinality as m(item, ord)
      order by m.ord
      on conflict (thread_id, id) do nothing
    )
    update runs set checkpoint = checkpoint - 'pendingInput', updated_at = now() where id in (select id from run) returning id`);
  return { joined: rowCount(result) > 0 };
}

/**
 * A run waiting for its turn here goes on here (to execute, or to end cancelled) — unless another
 * instance took it from the cluster's queue meanwhile (false).
 */
export async function takeQueuedRun(db: Executor, runId: string, instanceId: string): Promise<boolean> {
  const result = await db.execute(sql`
    update runs set status = 'running', updated_at = now()
    where id = ${runId} and instance_id = ${instanceId} and status in ('queued', 'running') returning id`);
  return rowCount(result) > 0;
}

/**
 * A run this instance queued leaves it for the cluster's queue (the instance is stopping): false
 * when it is no longer queued here (it started, or another instance took it).
 */
export async function releaseQueuedRun(db: Executor, runId: string, instanceId: string): Promise<boolean> {
  const result = await db.execute(sql`
    update runs set instance_id = null, updated_at = now()
    where id = ${runId} and instance_id = ${instanceId} and status = 'queued' returning id`);
  return rowCount(result) > 0;
}

/**
 * A run in the cluster's queue that no instance holds (its own stopped), taken to be ended here:
 * false when it is no longer waiting there.
 */
export async function takeUnheldQueuedRun(db: Executor, runId: string, instanceId: string): Promise<boolean> {
  const result = await db.execute(sql`
    update runs set status = 'running', instance_id = ${instanceId}, updated_at = now()
    where id = ${runId} and instance_id is null and status = 'queued' returning id`);
  return rowCount(result) > 0;
}

/**
 * The cluster's queue: takes the queued run that should go next for an instance with room — by
 * priority, then the run whose tenant, then whose user, has the fewest runs executing, then age —
 * skipping rows another instance is taking (`SKIP LOCKED`), runs of users who already have
 * `maxPerUser` runs executing, and runs whose thread has an earlier run still to go (a thread's runs
 * go one after the other).
 */
export async function takeNextQueuedRun(
  db: Executor,
  instanceId: string,
  busyHere: { runIds: readonly string[]; threadIds: readonly string[] },
  maxPerUser: number,
) {
  const result = await db.execute(sql`
    with next as (
      select q.id from runs q
        cross join lateral (
          select count(*) filter (where a.owner_id = q.owner_id) as owner_running, count(*) as tenant_running
          from runs a where a.tenant_id = q.tenant_id and a.status = 'running'
        ) busy
      -- Its own queued runs an instance admits itself, as its slots free.
      where q.status = 'queued' and q.instance_id is distinct from ${instanceId}
        and q.id <> all(${sql.param([...busyHere.runIds])}::text[])
        and q.thread_id <> all(${sql.param([...busyHere.threadIds])}::text[])
        and not exists (
          select 1 from runs o where o.thread_id = q.thread_id and o.id <> q.id
            and (o.status = 'running' or (o.status = 'queued' and (o.created_at, o.id) < (q.created_at, q.id)))
        )
        and busy.owner_running < ${maxPerUser}
      order by q.priority desc, busy.tenant_running, busy.owner_running, q.created_at, q.id
      limit 1
      for update of q skip locked
    )
    update runs r set status = 'running', instance_id = ${instanceId}, updated_at = now()
    from next where r.id = next.id
    returning r.id, r.thread_id, r.tenant_id, r.owner_id, r.agent_id, r.priority,
      coalesce(r.checkpoint ? 'pendingInput', false) as held_input, coalesce(r.checkpoint ? 'handoff', false) as handed_off`);
  const [row] = rowsOf(
    result,
    z.object({
      id: z.string(),
      thread_id: z.string(),
      tenant_id: z.string(),
      owner_id: z.string(),
      agent_id: z.string(),
      priority: z.number(),
      held_input: z.boolean(),
      handed_off: z.boolean(),
    }),
  );
  return row
    ? {
        runId: row.id,
        threadId: row.thread_id,
        tenantId: row.tenant_id,
        ownerId: row.owner_id,
        agentId: row.agent_id,
        priority: row.priority,
        heldInput: row.held_input,
        /** Handed back by a stopping instance between two steps: it goes on from its checkpoint. */
        handedOff: row.handed_off,
      }
    : undefined;
}

/** Whose run it is (its tenant and owner), or undefined for an unknown run. */
export async function runOwner(db: Executor, runId: string): Promise<{ tenantId: string; ownerId: string } | undefined> {
  const [row] = await db.select({ tenantId: runs.tenantId, ownerId: runs.ownerId }).from(runs).where(eq(runs.id, runId)).limit(1);
  return row;
}
