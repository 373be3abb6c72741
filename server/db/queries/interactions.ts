/**
 * Interactions: the stored side of the coordinator. Every state change is one statement that also
 * writes its audit entry, and every resolution is a compare-and-set on `status = 'pending'`, so
 * concurrent submissions cannot both win.
 */
import { aliasedTable, and, desc, eq, getTableColumns, inArray, ne, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf, voteSchema } from "./rows";
import { runEventCodec } from "../codecs/run-event";
import { checkpointCodec } from "../codecs/checkpoint";
import { grantsInClaim, type NewGrant } from "./grants";
import { StoredContinuation } from "../codecs/continuation";
import { continuationOf } from "./runs";
import { credentialColumnTypes, credentialHoldsFor, credentialValues } from "./users";
import { jsonRows } from "./json-rows";
import { interactions, users } from "../schema";
import {
  ESCALATION_GROUPS,
  INTERACTION_KINDS,
  RESOLVER_POLICIES,
  cancelledNote,
  type CancelledBy,
  type CredentialCheck,
  type ErrorCode,
  type EscalationGroup,
  type ExpiryDefault,
  type InteractionKind,
  type InteractionStatus,
  type ResolverPolicy,
  type RunEvent,
  type Vote,
} from "@/server/domain";

export type InteractionRow = typeof interactions.$inferSelect;

export async function findInteractions(db: Executor, ids: readonly string[]): Promise<InteractionRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(interactions)
    .where(inArray(interactions.id, [...ids]));
}

/**
 * The interactions a resolution names, plus — with `threadId` — every interaction still pending on
 * that thread (to check a resume answers them all), in one query.
 */
export async function interactionsToResolve(db: Executor, ids: readonly string[], threadId?: string): Promise<InteractionRow[]> {
  const named = inArray(interactions.id, [...ids]);
  const where = threadId ? or(named, and(eq(interactions.threadId, threadId), eq(interactions.status, "pending"))) : named;
  return db.select().from(interactions).where(where);
}

/** The browser-tool requests of a thread that these tool calls answer (any status). */
export async function browserRequestsFor(db: Executor, threadId: string, toolCallIds: readonly string[]): Promise<InteractionRow[]> {
  if (toolCallIds.length === 0) return [];
  return db
    .select()
    .from(interactions)
    .where(
      and(eq(interactions.threadId, threadId), eq(interactions.kind, "client_tool"), inArray(interactions.toolCallId, [...toolCallIds])),
    );
}

/**
 * The waits of these tool calls (made by these runs) that are still open, or closed unanswered —
 * expired, or lost with its process, so the call will never have a result. Found by the runs' index.
 */
export async function unansweredWaits(
  db: Executor,
  runIds: readonly string[],
  toolCallIds: readonly string[],
): Promise<{ toolCallId: string; kind: InteractionKind; status: "pending" | "expired" | "lost" }[]> {
  if (runIds.length === 0 || toolCallIds.length === 0) return [];
  const rows = await db
    .select({ toolCallId: interactions.toolCallId, kind: interactions.kind, status: interactions.status })
    .from(interactions)
    .where(
      and(
        inArray(interactions.runId, [...runIds]),
        inArray(interactions.toolCallId, [...toolCallIds]),
        inArray(interactions.status, ["pending", "expired", "lost"]),
      ),
    );
  return rows.flatMap((r) =>
    r.toolCallId && (r.status === "pending" || r.status === "expired" || r.status === "lost")
      ? [{ toolCallId: r.toolCallId, kind: r.kind, status: r.status }]
      : [],
  );
}

/** A run's open interactions. */
export async function pendingOfRun(db: Executor, runId: string): Promise<InteractionRow[]> {
  return db
    .select()
    .from(interactions)
    .where(and(eq(interactions.runId, runId), eq(interactions.status, "pending")));
}

/** What the thread waits on that someone must answer (background work is not among them). */
export async function pendingOnThread(db: Executor, threadId: string): Promise<InteractionRow[]> {
  return db
    .select()
    .from(interactions)
    .where(and(eq(interactions.threadId, threadId), eq(interactions.status, "pending"), ne(interactions.kind, "external_wait")))
    .orderBy(interactions.createdAt);
}

export interface Claim {
  id: string;
  status: Exclude<InteractionStatus, "pending" | "lost" | "expired">;
  /** What is kept of the answer: an approval's decision, a browser tool's output. */
  decision: Record<string, unknown>;
}

export interface ClaimResult {
  /** The ids resolved: all of them, or none when any lost the race. */
  ids: string[];
  /** For each run whose last open interaction this claim answered: what it needs to go on. */
  continuations: Map<string, StoredContinuation>;
}

/** One caller's claim: its answers, who gives them, and the standing approvals they create. */
export interface ClaimRequest {
  claims: readonly Claim[];
  actor: { tenantId: string; userId: string; via: string };
  /** Standing approvals given with these answers: created only with the approvals that give them. */
  grants?: readonly NewGrant[];
  /** The actor's identity was remembered, not looked up: claim nothing unless its credential is live. */
  unverified?: CredentialCheck;
}

/**
 * Resolves every claimed interaction at once, or none: each must still be pending and unexpired.
 * The audit entries commit in the same statement, and a run left with nothing to wait for comes
 * back with its continuation, so a resume costs one round trip.
 */
export async function claimInteractions(
  db: Executor,
  claims: readonly Claim[],
  actor: ClaimRequest["actor"],
  /** The instance that will drive the answered runs on. */
  instanceId: string,
  grants: readonly NewGrant[] = [],
  unverified?: CredentialCheck,
): Promise<ClaimResult> {
  const [result] = await claimForMany(db, [{ claims, actor, grants, unverified }], instanceId);
  return result!;
}

/**
 * A claimed interaction, with its run's continuation when it was the run's last wait. Made once: a
 * schema made per call is compiled again at its first parse, which cost more than the rest of the
 * claim's own code.
 */
const claimedRow = z.object({ id: z.string(), run_id: z.string(), caller: z.number(), continuation: column.json });

/**
 * `claimInteractions` for several callers in one statement (group commit), each all or none on its
 * own; the callers' interaction ids must be disjoint. A run answered by several callers at once
 * comes back with its continuation to one of them only (the first), so it is driven once.
 */
export async function claimForMany(db: Executor, requests: readonly ClaimRequest[], instanceId: string): Promise<ClaimResult[]> {
  const asked = requests.flatMap((request, caller) => request.claims.map((claim) => ({ caller, ...claim })));
  const grants = requests.flatMap((request) => (request.grants ?? []).map((grant) => ({ ...grant, grantedBy: request.actor.userId })));
  const result = await db.execute(sql`
    with caller as (
      select * from ${jsonRows(
        requests.map((r, caller) => ({
          caller,
          tenant_id: r.actor.tenantId,
          user_id: r.actor.userId,
          via: r.actor.via,
          size: r.claims.length,
          ...credentialValues(r.unverified),
        })),
        "k",
        `caller int, tenant_id text, user_id text, via text, size int, ${credentialColumnTypes}`,
      )}
    ),
    asked as (
      select * from ${jsonRows(
        asked.map((a) => ({ caller: a.caller, id: a.id, status: a.status, decision: a.decision })),
        "a",
        "caller int, id text, status text, decision jsonb",
      )}
    ),
    wanted as (
      select i.id, a.caller from interactions i
      join asked a on a.id = i.id
      join caller k on k.caller = a.caller
      where i.tenant_id = k.tenant_id and i.status = 'pending' and i.expires_at > now() and ${credentialHoldsFor("k")}
      order by i.id
      for update of i
    ),
    -- All or none, per caller.
    won as (
      select k.* from caller k where (select count(*) from wanted w where w.caller = k.caller) = k.size
    ),
    claimed as (
      update interactions i set status = a.status, decision = a.decision, resolved_by = k.user_id, resolved_at = now()
      from asked a join won k on k.caller = a.caller
      where i.id = a.id and i.id in (select id from wanted)
      returning i.id, i.tenant_id, i.run_id, i.tool_name, i.status, i.decision, k.caller, k.user_id, k.via
    ),
    -- Ordered by tenant: the audit chain locks each tenant's chain in turn (see 0013_audit_chain.sql).
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, user_id, 'interaction.resolve', 'interaction', id, status,
        jsonb_build_object('runId', run_id, 'tool', tool_name, 'decision', decision, 'via', via)
      from claimed order by tenant_id
    ),
    -- Runs with nothing left to wait for (the statement sees rows as they were: claimed ones still look pending).
    answered as (
      select c.run_id, min(c.caller) as caller from claimed c
      where not exists (
        select 1 from interactions o
        where o.run_id = c.run_id and o.status = 'pending' and o.id not in (select id from claimed)
      )
      group by c.run_id
    ),
    -- They run again from this commit on: a crash before their next write shows as a running run,
    -- never as a paused one nobody can answer.
    resumed as (
      update runs set status = 'running', pause_reason = null, instance_id = ${instanceId}, updated_at = now()
      where id in (select run_id from answered) and status = 'paused'
      returning id, checkpoint
    )${grantsInClaim(grants)}
    -- The checkpoint as the update left it, not as the statement's snapshot saw it: steering held
    -- with the parked run by a statement that committed meanwhile is in it.
    select c.id, c.run_id, c.caller,
      case when (c.run_id, c.caller) in (select run_id, caller from answered)
        then (${continuationOf(sql`c.run_id`)})::jsonb
          || coalesce((select jsonb_build_object('checkpoint', r.checkpoint) from resumed r where r.id = c.run_id), '{}'::jsonb)
      end as continuation
    from claimed c`);
  const rows = rowsOf(result, claimedRow);
  const results = requests.map((): ClaimResult => ({ ids: [], continuations: new Map() }));
  for (const row of rows) {
    const mine = results[row.caller]!;
    mine.ids.push(row.id);
    if (row.continuation != null) mine.continuations.set(row.run_id, new StoredContinuation(row.continuation));
  }
  return results;
}

/** One deadline that acted: a reminder sent or an escalation made, with the event it logged. */
export interface DeadlineAction {
  id: string;
  runId: string;
  tenantId: string;
  ownerId: string;
  policy: ResolverPolicy;
  action: "remind" | "escalate";
  escalateTo: EscalationGroup | null;
  /** Its event in the run's log (absent when the run was no longer paused). */
  logged?: { seq: number; event: RunEvent };
}

/** Any number: it names the lock that lets one instance at a time act on deadlines. */
const DEADLINE_LOCK = 0x4861_7262;

/**
 * Acts on gates' deadlines that fell due — an escalation before a reminder of the same gate (one
 * each per sweep) — once, whichever instance's sweep gets there first: the update is the
 * compare-and-set, and only one instance at a time runs this statement. Each action is recorded in
 * its run's log (numbered after the run's last event, noted in its checkpoint so the journal that
 * continues the run numbers after it) and in the audit, in one statement.
 */
export async function actOnDueDeadlines(db: Executor, limit = 100): Promise<DeadlineAction[]> {
  const result = await db.execute(sql`
    with lock as (select pg_try_advisory_xact_lock(${DEADLINE_LOCK}) as held),
    due as (
      select id,
        case when escalate_to is not null and escalated_at is null and escalate_at <= now() then 'escalate' else 'remind' end as action
      from interactions
      where status = 'pending' and expires_at > now() and (select held from lock)
        and ((escalate_to is not null and escalated_at is null and escalate_at <= now()) or (reminded_at is null and remind_at <= now()))
      order by id
      limit ${limit}
      for update skip locked
    ),
    acted as (
      update interactions i set
        escalated_at = case when d.action = 'escalate' then now() else i.escalated_at end,
        reminded_at = case when d.action = 'remind' then now() else i.reminded_at end
      from due d where i.id = d.id
      returning i.id, i.run_id, i.tenant_id, i.owner_id, i.policy, i.escalate_to, i.expires_at, d.action
    ),
    numbered as (
      select a.*, row_number() over (partition by a.run_id order by a.id) as ord,
        jsonb_strip_nulls(jsonb_build_object(
          'type', case a.action when 'escalate' then 'pause.escalated' else 'pause.reminder' end,
          'v', ${runEventCodec.version}::int,
          'pauseId', a.id,
          'to', case when a.action = 'escalate' then a.escalate_to end,
          'expiresAt', floor(extract(epoch from a.expires_at) * 1000)::bigint
        )) as event
      from acted a
    ),
    logged_runs as (
      update runs r set checkpoint = jsonb_set(coalesce(r.checkpoint, ${checkpointCodec.emptyJson}::jsonb), '{logSeq}', to_jsonb(c.last_seq + c.count)), updated_at = now()
      from (
        select n.run_id, count(*) as count, (select coalesce(max(e.seq), 0) from run_events e where e.run_id = n.run_id) as last_seq
        from numbered n group by n.run_id
      ) c
      where r.id = c.run_id and r.status = 'paused'
      returning r.id, c.last_seq
    ),
    logged as (
      insert into run_events (run_id, seq, type, data)
      select n.run_id, l.last_seq + n.ord, n.event->>'type', n.event
      from numbered n join logged_runs l on l.id = n.run_id
      returning run_id, seq, data
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, null, case action when 'escalate' then 'interaction.escalate' else 'interaction.remind' end, 'interaction', id,
        case action when 'escalate' then 'escalated' else 'reminded' end,
        jsonb_strip_nulls(jsonb_build_object('runId', run_id, 'escalatedTo', case when action = 'escalate' then escalate_to end, 'expiresAt', expires_at))
      from acted
      order by tenant_id
    )
    select n.id, n.run_id, n.tenant_id, n.owner_id, n.policy, n.escalate_to, n.action, l.seq, l.data
    from numbered n left join logged l on l.run_id = n.run_id and l.data->>'pauseId' = n.id`);
  const row = z.object({
    id: z.string(),
    run_id: z.string(),
    tenant_id: z.string(),
    owner_id: z.string(),
    policy: z.enum(RESOLVER_POLICIES),
    escalate_to: z.enum(ESCALATION_GROUPS).nullable(),
    action: z.enum(["remind", "escalate"]),
    seq: column.number.nullable(),
    data: column.json,
  });
  return rowsOf(result, row).map((r) => ({
    id: r.id,
    runId: r.run_id,
    tenantId: r.tenant_id,
    ownerId: r.owner_id,
    policy: r.policy,
    action: r.action,
    escalateTo: r.escalate_to,
    ...(r.seq !== null && r.data ? { logged: { seq: r.seq, event: runEventCodec.decode(r.data) } } : {}),
  }));
}

/** Which pending interactions to close — named intents, so callers never pass SQL. */
export type CloseTarget =
  /** These interactions (and, with them, their runs' other pending ones). */
  | { ids: readonly string[] }
  /** Everything a run waits on. */
  | { runId: string }
  /**
   * Waits past their expiry held by this instance — and, with `durableKinds`, durable waits anyone
   * left behind — whose safe default is `onExpiry`.
   */
  | { expiredOf: string; durableKinds?: readonly InteractionKind[]; onExpiry: ExpiryDefault }
  /** Waits of these kinds held by these instances (what a dead instance can no longer answer). */
  | { heldBy: readonly string[]; kinds: readonly InteractionKind[] };

function closeCondition(target: CloseTarget): SQL {
  if ("ids" in target) return sql`id = any(${sql.param([...target.ids])}::text[])`;
  if ("runId" in target) return sql`run_id = ${target.runId}`;
  if ("heldBy" in target) {
    return sql`instance_id = any(${sql.param([...target.heldBy])}::text[]) and kind = any(${sql.param([...target.kinds])}::text[])`;
  }
  const mine = sql`instance_id = ${target.expiredOf}`;
  const durable = target.durableKinds?.length ? sql` or kind = any(${sql.param([...target.durableKinds])}::text[])` : sql``;
  return sql`expires_at <= now() and on_expiry = ${target.onExpiry} and (${mine}${durable})`;
}

/** How the closed waits' runs end: failed with a code, or cancelled by someone (with a note in the thread). */
export type RunEnding = { failure: { code: ErrorCode; message: string } } | { cancelledBy: CancelledBy };

/**
 * Ends interactions that can no longer be answered (`expired`, `lost` with their process, or
 * `cancelled`), with their runs and their final events in each run's log — one statement. Only
 * pending rows change. A run ends as a whole: its other pending interactions close with it, so
 * none is left blocking the thread. A cancelled run also leaves a note in its thread.
 */
export async function closeInteractions(
  db: Executor,
  to: "expired" | "lost" | "cancelled",
  target: CloseTarget,
  ending: RunEnding,
): Promise<ClosedInteraction[]> {
  const failure = "failure" in ending ? ending.failure : null;
  const finalEvents: RunEvent[] =
    "failure" in ending
      ? [{ type: "run.failed", ...ending.failure }]
      : [
          { type: "run.cancelled", by: ending.cancelledBy },
          { type: "run.completed", status: "cancelled" },
        ];
  const note = "cancelledBy" in ending ? cancelledNote(ending.cancelledBy) : null;
  const result = await db.execute(sql`
    with closed as (
      update interactions set status = ${to}, resolved_at = now()
      where status = 'pending' and run_id in (select run_id from interactions where status = 'pending' and (${closeCondition(target)}))
      returning id, run_id, tenant_id, owner_id, policy, kind, on_expiry
    ),
    ended_runs as (
      update runs set status = ${failure ? to : "cancelled"}, pause_reason = null, error = ${failure ? JSON.stringify(failure) : null}::jsonb,
        finished_at = now(), updated_at = now()
      where id in (select run_id from closed) and status = 'paused'
      returning id, thread_id
    ),
    final_events as (
      insert into run_events (run_id, seq, type, data)
      select r.id, (select coalesce(max(seq), 0) from run_events e where e.run_id = r.id) + f.ord, f.type, f.data
      from ended_runs r,
        ${jsonRows(
          finalEvents.map((event, index) => ({ type: event.type, data: runEventCodec.encode(event), ord: index + 1 })),
          "f",
          "type text, data jsonb, ord int",
        )}
      returning run_id, seq
    ),
    notes as (
      insert into messages (id, thread_id, run_id, role, content)
      select gen_random_uuid()::text, r.thread_id, r.id, 'system', ${note}::text
      from ended_runs r where ${note}::text is not null
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, null, 'interaction.close', 'interaction', id, ${to},
        jsonb_strip_nulls(jsonb_build_object('runId', run_id, 'onExpiry', case when ${to} = 'expired' then on_expiry end))
      from closed
      -- Tenant by tenant: the chain's per-tenant locks are always taken in one order (no deadlock).
      order by tenant_id
    )
    select c.id, c.run_id, c.tenant_id, c.owner_id, c.policy, c.kind, (select min(f.seq) from final_events f where f.run_id = c.run_id) as final_seq
    from closed c`);
  const row = z.object({
    id: z.string(),
    run_id: z.string(),
    tenant_id: z.string(),
    owner_id: z.string(),
    policy: z.enum(RESOLVER_POLICIES),
    kind: z.enum(INTERACTION_KINDS),
    final_seq: column.number.nullable(),
  });
  return rowsOf(result, row).map((r) => ({
    id: r.id,
    runId: r.run_id,
    tenantId: r.tenant_id,
    ownerId: r.owner_id,
    policy: r.policy,
    kind: r.kind,
    finalEvents: r.final_seq === null ? [] : finalEvents.map((event, i) => ({ seq: r.final_seq! + i, event })),
  }));
}

export interface ClosedInteraction {
  id: string;
  runId: string;
  tenantId: string;
  ownerId: string;
  policy: ResolverPolicy;
  kind: InteractionKind;
  /** The events that ended its run, with their seqs (none when the run was not paused). */
  finalEvents: { seq: number; event: RunEvent }[];
}

export interface InteractionFilter {
  tenantId: string;
  status?: InteractionStatus;
  kind?: InteractionKind;
  tool?: string;
  requester?: string;
  /** On any of these threads (a thread's stored id and the tenant's own id for it). */
  threadIds?: readonly string[];
  /** Only rows these conditions admit (who may see what is the runtime's rule). */
  visibleTo: { userId: string; approver: boolean; admin: boolean };
  limit?: number;
}

const requester = aliasedTable(users, "requester");
const resolver = aliasedTable(users, "resolver");

/** An interaction with the names an inbox shows. */
export type InteractionListRow = InteractionRow & {
  requesterName: string | null;
  requesterEmail: string | null;
  resolverName: string | null;
  /** The thread's id as its client knows it, when it is stored under the tenant's own id for it. */
  threadClientId: string | null;
  /** A quorum gate's possible voters — the tenant's approvers but its requester — by name. */
  voters: { id: string; name: string }[] | null;
};

/** The inbox: newest first. A caller sees their own interactions, and approvers the tenant's routed ones. */
export async function listInteractions(db: Executor, filter: InteractionFilter & { id?: string }): Promise<InteractionListRow[]> {
  const conditions: SQL[] = [eq(interactions.tenantId, filter.tenantId)];
  if (filter.id) conditions.push(eq(interactions.id, filter.id));
  if (filter.status) conditions.push(eq(interactions.status, filter.status));
  if (filter.kind) conditions.push(eq(interactions.kind, filter.kind));
  if (filter.tool) conditions.push(eq(interactions.toolName, filter.tool));
  if (filter.requester) conditions.push(eq(interactions.ownerId, filter.requester));
  if (filter.threadIds) conditions.push(inArray(interactions.threadId, [...filter.threadIds]));
  const mine = eq(interactions.ownerId, filter.visibleTo.userId);
  const groups = [...(filter.visibleTo.approver ? ["approvers"] : []), ...(filter.visibleTo.admin ? ["admins"] : [])];
  // Routed to a group the caller is in: by its policy, or by an escalation.
  const routed = sql`(${interactions.policy} = 'approvers' or (${interactions.escalatedAt} is not null and ${interactions.escalateTo} = any(${sql.param(groups)}::text[])))`;
  conditions.push(filter.visibleTo.approver ? sql`(${mine} or ${routed})` : mine);
  return db
    .select({
      ...getTableColumns(interactions),
      requesterName: requester.name,
      requesterEmail: requester.email,
      resolverName: resolver.name,
      threadClientId: sql<string | null>`(select t.client_id from threads t where t.id = ${interactions.threadId})`,
      voters: sql<{ id: string; name: string }[] | null>`case when ${interactions.quorum} > 1 then (
        select coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'name', u.name) order by u.name), '[]'::jsonb)
        from users u
        where u.tenant_id = ${interactions.tenantId} and u.role in ('approver', 'admin') and u.id <> ${interactions.ownerId}
      ) end`,
    })
    .from(interactions)
    .leftJoin(requester, eq(requester.id, interactions.ownerId))
    .leftJoin(resolver, eq(resolver.id, interactions.resolvedBy))
    .where(and(...conditions))
    .orderBy(desc(interactions.createdAt))
    .limit(filter.limit ?? 200);
}

/**
 * Casts one approver's vote on a gate that needs several, as one compare-and-set on the gate's row
 * (only while it is pending and unexpired, once per voter), audited in the same statement. Returns
 * the votes after it, or undefined when it was not cast: the voter already voted, or the gate is closed.
 */
export async function castVote(
  db: Executor,
  gate: { id: string; tenantId: string },
  vote: Vote,
): Promise<{ votes: Vote[]; approvals: number; quorum: number } | undefined> {
  const result = await db.execute(sql`
    with voted as (
      update interactions set votes = votes || ${JSON.stringify([vote])}::jsonb
      where id = ${gate.id} and tenant_id = ${gate.tenantId} and status = 'pending' and expires_at > now()
        and not exists (select 1 from jsonb_array_elements(votes) v where v->>'by' = ${vote.by})
      returning id, tenant_id, run_id, quorum, votes
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, ${vote.by}, 'interaction.vote', 'interaction', id, ${vote.approved ? "approved" : "rejected"},
        jsonb_build_object('runId', run_id, 'quorum', quorum, 'votes', jsonb_array_length(votes))
      from voted
    )
    select votes, quorum from voted`);
  const [row] = rowsOf(result, z.object({ votes: z.array(voteSchema), quorum: z.number() }));
  if (!row) return undefined;
  return { votes: row.votes, approvals: row.votes.filter((v) => v.approved).length, quorum: row.quorum };
}

/**
 * Marks a pending OAuth consent as being completed — one callback at a time exchanges its code.
 * Returns false when it is not pending, or another callback already holds it.
 */
export async function holdConsent(db: Executor, id: string): Promise<boolean> {
  const held = await db
    .update(interactions)
    .set({ decision: { connecting: true } })
    .where(and(eq(interactions.id, id), eq(interactions.status, "pending"), sql`${interactions.decision} is null`))
    .returning({ id: interactions.id });
  return held.length > 0;
}

/** Lets another callback try again (the exchange failed; the consent is still open). */
export async function releaseConsent(db: Executor, id: string): Promise<void> {
  await db
    .update(interactions)
    .set({ decision: null })
    .where(and(eq(interactions.id, id), eq(interactions.status, "pending")));
}
