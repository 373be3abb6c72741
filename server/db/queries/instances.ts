/**
 * Instances sharing the database: registration, heartbeats, and reclaiming what a dead one held.
 */
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";
import { runEventCodec } from "../codecs/run-event";
import { instances, routedRequests } from "../schema";
import type { RunEvent } from "@/server/domain";

/** Registers the instance (again, after a stall that got it reclaimed: alive from now on). */
export async function registerInstance(db: Executor, id: string): Promise<void> {
  await db
    .insert(instances)
    .values({ id })
    .onConflictDoUpdate({ target: instances.id, set: { heartbeatAt: sql`now()`, reclaimedAt: null, reclaimedBy: null, stoppingAt: null } });
}

/** Instances reclaimed (dead) that may still hold runs or waits: what a reclaim cut short is finished from these. */
export async function reclaimedInstances(db: Executor): Promise<string[]> {
  const rows = await db
    .select({ id: instances.id })
    .from(instances)
    .where(sql`${instances.reclaimedAt} is not null`);
  return rows.map((r) => r.id);
}

/** Says the instance is alive; false when it was reclaimed meanwhile (it was silent too long). */
export async function beat(db: Executor, id: string): Promise<{ alive: boolean }> {
  const rows = await db
    .update(instances)
    .set({ heartbeatAt: sql`now()` })
    .where(and(eq(instances.id, id), isNull(instances.reclaimedAt)))
    .returning({ id: instances.id });
  return { alive: rows.length > 0 };
}

/**
 * A graceful stop hands the instance's work to the cluster, in one statement: its row says it is
 * stopping (the others take its durable waits over from then on, instead of forwarding their
 * answers to it), and its queued runs leave it for the cluster's queue (no instance holds them, so
 * none is reclaimed with it) — when `queued`, that is, when another instance can take them. Returns
 * how many queued runs it handed over.
 */
export async function handOffInstance(db: Executor, id: string, queued: boolean): Promise<{ queued: number }> {
  const result = await db.execute(sql`
    with stopping as (
      update instances set stopping_at = coalesce(stopping_at, now()) where id = ${id} returning id
    ),
    released as (
      update runs set instance_id = null, updated_at = now()
      where ${queued}::boolean and instance_id = ${id} and status = 'queued' returning id
    )
    select (select count(*) from released)::int as queued`);
  const [row] = rowsOf(result, z.object({ queued: z.number() }));
  return { queued: row?.queued ?? 0 };
}

/**
 * What an instance is to the others: `serving` (it holds its waits and executes its runs),
 * `stopping` (a graceful stop: it still answers what only it can, but its durable waits are anyone's),
 * or `gone` (left, reclaimed, or silent for `ttlMs`).
 */
export type InstanceState = "serving" | "stopping" | "gone";

export async function instanceState(db: Executor, id: string, ttlMs: number): Promise<InstanceState> {
  const [row] = await db
    .select({ stopping: sql<boolean>`${instances.stoppingAt} is not null` })
    .from(instances)
    .where(
      and(
        eq(instances.id, id),
        isNull(instances.reclaimedAt),
        sql`${instances.heartbeatAt} > now() - make_interval(secs => ${ttlMs / 1000})`,
      ),
    )
    .limit(1);
  if (!row) return "gone";
  return row.stopping ? "stopping" : "serving";
}

/** A stopped instance leaves: nothing is left to reclaim from it. */
export async function unregisterInstance(db: Executor, id: string): Promise<void> {
  await db.delete(instances).where(eq(instances.id, id));
}

/**
 * Takes the right to reclaim dead instances, one winner each: those silent for `ttlMs` (or, with
 * `allOthers`, every instance but `me` — the embedded database has one process, so at start-up every
 * other is dead), and those that held runs or waits but never registered (written before instances
 * existed). Returns the ids this instance won.
 */
export async function claimDeadInstances(db: Executor, me: string, ttlMs: number, allOthers = false): Promise<string[]> {
  const result = await db.execute(sql`
    with unregistered as (
      insert into instances (id, heartbeat_at)
      select distinct held.instance_id, 'epoch'::timestamptz from (
        select instance_id from interactions where status = 'pending' and instance_id is not null
        union select instance_id from runs where status in ('queued', 'running') and instance_id is not null
      ) held
      where not exists (select 1 from instances i where i.id = held.instance_id)
      on conflict (id) do nothing
    ),
    dead as (
      update instances set reclaimed_by = ${me}, reclaimed_at = now()
      where id <> ${me} and reclaimed_at is null
        and (${allOthers}::boolean or heartbeat_at < now() - make_interval(secs => ${ttlMs / 1000}))
      returning id
    )
    select id from dead`);
  return rowsOf(result, z.object({ id: z.string() })).map((r) => r.id);
}

/**
 * Runs that execute nowhere: `queued` or `running` on a dead instance (or on none — written before
 * instances existed, when `unowned`). They end `failed` with `INSTANCE_LOST` and a final event, audited.
 * A text message still streaming is closed first (`text.ended`, interrupted) and kept in the thread
 * with the text stored of it. The closing events are numbered `streamedAhead` past the last stored
 * one, every time: past whatever the instance may have published unstored (a message's start too,
 * so no stored text does not mean none was seen) and whatever it is still writing. A message its
 * writer stored meanwhile stays as written. Returns each event written.
 */
export async function failRunsOf(
  db: Executor,
  deadInstances: readonly string[],
  failure: { code: "INSTANCE_LOST"; message: string },
  options: { unowned?: boolean; streamedAhead: number },
): Promise<{ runId: string; tenantId: string; seq: number; event: RunEvent }[]> {
  const event: RunEvent = { type: "run.failed", ...failure };
  const closed = runEventCodec.encode({ type: "text.ended", messageId: "", interrupted: true });
  const result = await db.execute(sql`
    with ended as (
      update runs set status = 'failed', pause_reason = null, error = ${JSON.stringify(failure)}::jsonb, finished_at = now(), updated_at = now()
      where status in ('queued', 'running')
        and (instance_id = any(${sql.param([...deadInstances])}::text[]) or (${options.unowned === true}::boolean and instance_id is null))
      returning id, tenant_id, thread_id, instance_id
    ),
    last_text as (
      select distinct on (x.run_id) x.run_id, x.type, x.data->>'messageId' as message_id
      from run_events x join ended e on e.id = x.run_id
      where x.type in ('text.started', 'text.ended')
      order by x.run_id, x.seq desc
    ),
    numbered as (
      select e.id, e.tenant_id, e.thread_id, t.message_id,
        (select coalesce(max(seq), 0) from run_events x where x.run_id = e.id) as last_seq
      from ended e left join last_text t on t.run_id = e.id and t.type = 'text.started'
    ),
    -- The thread says what happened, so a reload shows it and the next message starts afresh: the
    -- interrupted text (as stored) first, then the note.
    notes as (
      insert into messages (id, thread_id, run_id, role, content)
      select id, thread_id, run_id, role, content from (
        select n.message_id as id, n.thread_id, n.id as run_id, 'assistant' as role,
          (select coalesce(string_agg(d.data->>'delta', '' order by d.seq), '') from run_events d
            where d.run_id = n.id and d.type = 'text.delta' and d.data->>'messageId' = n.message_id) as content, 0 as rank
        from numbered n where n.message_id is not null
        union all
        select gen_random_uuid()::text, n.thread_id, n.id, 'system', ${failure.message}::text, 1 from numbered n
      ) m order by run_id, rank
      on conflict (thread_id, id) do nothing
    ),
    written as (
      insert into run_events (run_id, seq, type, data)
      select n.id, n.last_seq + ${options.streamedAhead}::int + 1, 'text.ended', ${JSON.stringify(closed)}::jsonb || jsonb_build_object('messageId', n.message_id)
      from numbered n where n.message_id is not null
      union all
      select n.id, n.last_seq + ${options.streamedAhead}::int + case when n.message_id is null then 1 else 2 end, 'run.failed', ${JSON.stringify(runEventCodec.encode(event))}::jsonb
      from numbered n
      returning run_id, seq, data
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, null, 'run.reclaim', 'run', id, 'failed', jsonb_build_object('instance', instance_id, 'code', ${failure.code}::text)
      from ended
      -- Tenant by tenant: the chain's per-tenant locks are always taken in one order (no deadlock).
      order by tenant_id
    )
    select e.id, e.tenant_id, w.seq, w.data from ended e join written w on w.run_id = e.id order by e.id, w.seq`);
  return rowsOf(result, z.object({ id: z.string(), tenant_id: z.string(), seq: column.number, data: z.unknown() })).map((r) => ({
    runId: r.id,
    tenantId: r.tenant_id,
    seq: r.seq,
    event: runEventCodec.decode(r.data),
  }));
}

/**
 * Forgets instances reclaimed long ago (their rows only record who reclaimed them) and forwarded
 * requests nobody will answer any more (sender and owner gone).
 */
export async function pruneInstances(db: Executor, olderThanMs: number): Promise<void> {
  const age = sql`now() - make_interval(secs => ${olderThanMs / 1000})`;
  await db.delete(instances).where(lt(instances.reclaimedAt, age));
  await db.delete(routedRequests).where(lt(routedRequests.createdAt, age));
}
