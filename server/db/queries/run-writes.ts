/**
 * The run's writes, each one SQL statement: the events of a step commit together with the state
 * they describe (the thread, messages, the run's status), so the event log and the tables never
 * disagree, and no multi-statement transaction holds PGlite's single connection across awaits.
 */
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";
import type {
  Checkpoint,
  CredentialCheck,
  InteractionDetail,
  InteractionKind,
  MessageRole,
  OutboxKind,
  EscalationGroup,
  ExpiryDefault,
  PauseReason,
  RunEvent,
  ResolverPolicy,
  RunStatus,
  StoredToolCall,
} from "@/server/domain";
import { checkpointCodec } from "../codecs/checkpoint";
import { interactionDetailCodec } from "../codecs/interaction-detail";
import { jobCodec, outboxDetailsCodec } from "../codecs/records";
import { storedForm } from "./event-storage";
import { credentialColumnTypes, credentialHoldsFor, credentialValues } from "./users";
import { jsonRows } from "./json-rows";
import type { ThreadRow } from "./threads";

export interface EventRow {
  seq: number;
  type: string;
  data: RunEvent;
}

/** A queued run's own message, held in its checkpoint until its turn (only user messages are held). */
const heldInput = (m: MessageInsert) => ({ id: m.id, role: "user" as const, content: m.content });

export interface MessageInsert {
  id: string;
  role: MessageRole;
  content: string;
  toolCalls?: StoredToolCall[];
  toolCallId?: string;
}

/** A pending interaction, stored with the events that announce it. */
export interface InteractionInsert {
  id: string;
  tenantId: string;
  threadId: string;
  ownerId: string;
  kind: InteractionKind;
  pauseReason: PauseReason | null;
  policy: ResolverPolicy;
  toolCallId?: string;
  toolName?: string;
  toolArgs?: Record<string, unknown>;
  message: string;
  responseSchema?: Record<string, unknown>;
  detail?: InteractionDetail;
  instanceId: string;
  expiresAt: Date;
  /** Approvals needed (an approvers' gate); 1 when absent. */
  quorum?: number;
  /** The gate's deadline timers and safe default (`reject` when absent). */
  remindAt?: Date | null;
  escalateAt?: Date | null;
  escalateTo?: EscalationGroup | null;
  onExpiry?: ExpiryDefault;
}

/** Rows of several runs' logs. */
type EventInsert = EventRow & { runId: string };
/** Messages of several threads. */
type MessageRowInsert = MessageInsert & { threadId: string; runId: string };

/**
 * INSERTs of event and message rows from one JSON parameter each. `onlyIf` names a CTE that must hold a
 * row for anything to be written (the thread or run created by the same statement).
 */
function insertEvents(events: readonly EventInsert[], onlyIf: SQL = sql`true`): SQL {
  const rows = events.map((e) => ({ run_id: e.runId, seq: e.seq, type: e.type, data: storedForm(e.data) }));
  return sql`
    insert into run_events (run_id, seq, type, data)
    select e.run_id, e.seq, e.type, e.data
    from ${jsonRows(rows, "e", "run_id text, seq int, type text, data jsonb")}
    where ${onlyIf}`;
}

function insertMessages(messages: readonly MessageRowInsert[], onlyIf: SQL = sql`true`): SQL {
  const rows = messages.map((m, ord) => ({
    id: m.id,
    thread_id: m.threadId,
    run_id: m.runId,
    role: m.role,
    content: m.content,
    tool_calls: m.toolCalls,
    tool_call_id: m.toolCallId,
    ord,
  }));
  return sql`
    insert into messages (id, thread_id, run_id, role, content, tool_calls, tool_call_id)
    select m.id, m.thread_id, m.run_id, m.role, m.content, m.tool_calls, m.tool_call_id
    from ${jsonRows(rows, "m", "id text, thread_id text, run_id text, role text, content text, tool_calls jsonb, tool_call_id text, ord int")}
    where ${onlyIf}
    order by m.ord
    on conflict (thread_id, id) do nothing`;
}

const begunRow = z.object({
  entry: z.number(),
  held: z.boolean(),
  clear: z.boolean(),
  id: z.string(),
  client_id: z.string().nullable(),
  tenant_id: z.string(),
  owner_id: z.string(),
  title: z.string(),
  state: z.record(z.string(), z.unknown()),
  created_at: column.date,
  updated_at: column.date,
  created: z.boolean(),
  grant_tools: z.array(z.string()),
});

/** What `beginRun` writes for one run. */
export interface BeginRunInput {
  /** `clientId`: the id the client chose, when `id` is the tenant's own id for it (a new thread keeps it). */
  thread: { id: string; clientId?: string; tenantId: string; ownerId: string; title: string; state?: Record<string, unknown> };
  messages: readonly MessageInsert[];
  run: { id: string; agentId: string; transportRunId: string; parentRunId?: string; instanceId: string };
  events: readonly EventRow[];
  /** Write nothing while another run of the thread executes or waits (double-texting `reject`). */
  onlyIfIdle?: boolean;
  /** Write nothing when the thread would then hold more messages than this (absent: no limit). */
  maxMessages?: number;
  /** Write nothing when the tenant's stored bytes, as last measured, are over this (absent: no quota). */
  maxStorageBytes?: number;
  /** Keep the messages with the run (its checkpoint's `pendingInput`) instead of the thread, until its turn. */
  holdMessages?: boolean;
  /**
   * Keep them so too when another run of the thread executes or waits anywhere (an earlier one goes
   * first), as committed once the thread's row is locked: none then means no run of another
   * instance is ahead of this one, and none can begin on the thread unseen until this one commits
   * (the answer's `clear`, unless a run of the thread is paused).
   */
  holdIfThreadBusy?: boolean;
  /** The owner's identity was remembered, not looked up: write nothing unless its credential is live. */
  unverified?: CredentialCheck;
}

/**
 * `held`: the run keeps its messages until its turn. `clear` (with `holdIfThreadBusy`): no run of
 * the thread is ahead of this one anywhere, nor paused where it could go on unseen — the run need
 * not look again in its turn.
 */
export type BegunThread = ThreadRow & { created: boolean; grantTools: string[]; held: boolean; clear: boolean };

/**
 * Starts a run in one statement: creates the thread (or touches the caller's own thread and takes
 * the client's state), appends the new messages, inserts the run and its first events.
 * Returns undefined — having written nothing — when the thread id belongs to someone else, waits
 * on a pending interaction, or the caller's remembered credential is no longer live.
 */
export async function beginRun(db: Executor, input: BeginRunInput): Promise<BegunThread | undefined> {
  const [begun] = await beginRuns(db, [input]);
  return begun;
}

/**
 * `beginRun` for several runs in one statement (group commit), each admitted or refused on its own;
 * the runs' threads must be distinct. Answers each input's thread (or undefined) in input order.
 */
export async function beginRuns(db: Executor, inputs: readonly BeginRunInput[]): Promise<(BegunThread | undefined)[]> {
  const messages = inputs.flatMap(({ holdMessages, messages, thread, run }) =>
    holdMessages ? [] : messages.map((m) => ({ ...m, threadId: thread.id, runId: run.id })),
  );
  const events = inputs.flatMap(({ events, run }) => events.map((e) => ({ ...e, runId: run.id })));
  const entries = inputs.map((i, entry) => ({
    entry,
    thread_id: i.thread.id,
    client_id: i.thread.clientId,
    tenant_id: i.thread.tenantId,
    user_id: i.thread.ownerId,
    title: i.thread.title,
    state: i.thread.state,
    only_if_idle: i.onlyIfIdle ?? false,
    max_messages: i.maxMessages,
    max_storage_bytes: i.maxStorageBytes,
    adding: i.messages.length,
    run_id: i.run.id,
    agent_id: i.run.agentId,
    transport_run_id: i.run.transportRunId,
    parent_run_id: i.run.parentRunId,
    instance_id: i.run.instanceId,
    hold: i.holdMessages ?? false,
    hold_if_busy: i.holdIfThreadBusy ?? false,
    held_checkpoint:
      i.holdMessages || i.holdIfThreadBusy
        ? checkpointCodec.encode({ step: 0, calls: [], pendingInput: i.messages.map(heldInput) })
        : undefined,
    ...credentialValues(i.unverified),
  }));
  const result = await db.execute(sql`
    with entry as (
      select * from ${jsonRows(
        entries,
        "k",
        `entry int, thread_id text, client_id text, tenant_id text, user_id text, title text, state jsonb, only_if_idle boolean,
        max_messages int, max_storage_bytes bigint, adding int, run_id text, agent_id text, transport_run_id text, parent_run_id text, instance_id text,
        hold boolean, hold_if_busy boolean, held_checkpoint jsonb, ${credentialColumnTypes}`,
      )}
    ),
    admitted as (
      select k.* from entry k
      -- New input waits until the thread's open interactions are answered.
      -- (Background work does not: it finishes by itself, and its result is appended when it does.)
      where ${credentialHoldsFor("k")}
        and not exists (select 1 from interactions i where i.thread_id = k.thread_id and i.status = 'pending' and i.kind <> 'external_wait')
        and (not k.only_if_idle or not exists (select 1 from runs r where r.thread_id = k.thread_id and r.status in ('queued', 'running')))
        and (k.max_messages is null or (select count(*) from messages m where m.thread_id = k.thread_id) + k.adding <= k.max_messages)
        and (k.max_storage_bytes is null
          or not exists (select 1 from tenant_storage s where s.tenant_id = k.tenant_id and s.bytes > k.max_storage_bytes))
    ),
    -- In id order, so concurrent statements lock threads in the same order.
    thread as (
      insert into threads (id, client_id, tenant_id, owner_id, title, state)
      select thread_id, client_id, tenant_id, user_id, title, coalesce(state, '{}'::jsonb) from admitted order by thread_id
      on conflict (id) do update set updated_at = now(),
        state = coalesce((select a.state from admitted a where a.thread_id = excluded.id), threads.state)
        -- Another owner's thread is neither changed nor returned, so nothing below is written for it.
        where threads.tenant_id = excluded.tenant_id and threads.owner_id = excluded.owner_id
      returning id, client_id, tenant_id, owner_id, title, state, created_at, updated_at, (xmax = 0) as created
    ),
    -- Looked at once the thread's row is locked (each row of thread is), as committed by then
    -- (harbor_thread_activity, migration 0019): another instance's run begun on the thread a moment
    -- earlier is seen, so the run need not look again after it commits. A paused run makes it not
    -- clear: background work can set it going without the thread's lock.
    settled as (
      select a.*,
        a.hold or a.hold_if_busy and other.statuses && array['queued', 'running'] as held,
        a.hold_if_busy and not a.hold and other.statuses = '{}' as clear
      from thread t join admitted a on a.thread_id = t.id
        cross join lateral (
          select case when a.hold_if_busy and not a.hold then harbor_thread_activity(t.id, a.run_id) else '{}'::text[] end as statuses
        ) other
    ),
    new_messages as (${insertMessages(messages, sql`m.thread_id in (select s.thread_id from settled s where not s.held)`)}),
    new_run as (
      -- Aged from after the thread's lock, not from the statement's start: a run's place among its
      -- thread's runs (oldest first) is the order in which their first writes held the thread.
      insert into runs (id, tenant_id, thread_id, owner_id, agent_id, status, transport_run_id, parent_run_id, instance_id, checkpoint, created_at)
      select a.run_id, t.tenant_id, t.id, t.owner_id, a.agent_id, 'running', a.transport_run_id, a.parent_run_id, a.instance_id,
        case when a.held then a.held_checkpoint end, clock_timestamp()
      from thread t join settled a on a.thread_id = t.id
      returning id
    ),
    first_events as (${insertEvents(events, sql`e.run_id in (select id from new_run)`)})
    -- The tools each owner holds live standing approvals for here: a gated call of another tool
    -- need not look for one (see grants.ts), which saves the lookup's statement on most gates.
    select a.entry, a.held, a.clear, t.*, array(
      select distinct g.tool_name from approval_grants g
      where g.tenant_id = t.tenant_id and g.owner_id = t.owner_id and g.revoked_at is null
        and g.expires_at > now() and (g.thread_id is null or g.thread_id = t.id)
    ) as grant_tools
    from thread t join settled a on a.thread_id = t.id`);
  const begun: (BegunThread | undefined)[] = inputs.map(() => undefined);
  for (const row of rowsOf(result, begunRow)) {
    begun[row.entry] = {
      id: row.id,
      clientId: row.client_id,
      tenantId: row.tenant_id,
      ownerId: row.owner_id,
      title: row.title,
      state: row.state,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      created: row.created,
      grantTools: row.grant_tools,
      held: row.held,
      clear: row.clear,
    };
  }
  return begun;
}

/** An external tool's job, stored with the pause that starts it. */
export interface JobInsert {
  id: string;
  tenantId: string;
  ownerId: string;
  threadId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}

/** What a tool call did, recorded in its owner's outbox with the call's result. */
export interface OutboxInsert {
  id: string;
  tenantId: string;
  userId: string;
  toolCallId: string;
  kind: OutboxKind;
  details: Record<string, unknown>;
  approvedBy: string | null;
}

/** A standing approval that let a call through, counted and audited with the call's stored result. */
export interface GrantUse {
  grantId: string;
  ownerId: string;
  threadId: string;
  toolCallId: string;
}

/** What commits together with a batch of events. */
export interface Alongside {
  /** Standing approvals used by the calls whose results the events carry. */
  grantUses?: readonly GrantUse[];
  /** Jobs the events start. */
  jobs?: readonly JobInsert[];
  /** Messages appended to the run's thread. */
  messages?: { threadId: string; rows: readonly MessageInsert[] };
  /** Interactions the events announce (a pause). */
  interactions?: readonly InteractionInsert[];
  /** Outbox records of the tool calls whose results the events carry. */
  outbox?: readonly OutboxInsert[];
  /** The run's new status; terminal statuses also stamp `finished_at`. */
  run?: {
    status: RunStatus;
    /** Set while paused, cleared otherwise. */
    pauseReason?: PauseReason | null;
    terminal?: boolean;
    checkpoint?: Checkpoint;
    error?: { code: string; message: string };
    /** Tokens a model spent on the run so far (absent: unchanged). */
    usage?: { inputTokens: number; outputTokens: number };
    /** The run leaves its instance for the cluster's queue: whichever instance takes it goes on with it. */
    leave?: boolean;
  };
}

/** One run's events and the state changes they describe. */
export interface RunEventsEntry {
  runId: string;
  events: readonly EventRow[];
  alongside?: Alongside;
}

/**
 * Appends the events of one or several runs, with the state changes they describe, in one
 * statement: all of it commits, or none of it. At most one entry per run.
 */
export async function appendRunEvents(db: Executor, entries: readonly RunEventsEntry[]): Promise<void> {
  const events = entries.flatMap((e) => e.events.map((row) => ({ runId: e.runId, ...row })));
  if (events.length === 0) return;
  const messages = entries.flatMap(({ runId, alongside }) => {
    const said = alongside?.messages;
    return said ? said.rows.map((m) => ({ ...m, runId, threadId: said.threadId })) : [];
  });
  const updates = entries.flatMap((e) => (e.alongside?.run ? [{ runId: e.runId, ...e.alongside.run }] : []));
  const waits = entries.flatMap((e) => (e.alongside?.interactions ?? []).map((i) => ({ runId: e.runId, ...i })));
  const work = entries.flatMap((e) => (e.alongside?.jobs ?? []).map((j) => ({ runId: e.runId, ...j })));
  const effects = entries.flatMap((e) => (e.alongside?.outbox ?? []).map((o) => ({ runId: e.runId, ...o })));
  const grantUses = entries.flatMap((e) => (e.alongside?.grantUses ?? []).map((u) => ({ runId: e.runId, ...u })));

  const ctes: SQL[] = [];
  if (messages.length > 0) ctes.push(sql`new_messages as (${insertMessages(messages)})`);
  if (updates.length > 0) {
    ctes.push(sql`run_updates as (
      update runs set
        status = u.status,
        pause_reason = u.pause_reason,
        checkpoint = coalesce(u.checkpoint, runs.checkpoint),
        error = coalesce(u.error, runs.error),
        finished_at = case when u.terminal then now() else runs.finished_at end,
        input_tokens = coalesce(u.input_tokens, runs.input_tokens),
        output_tokens = coalesce(u.output_tokens, runs.output_tokens),
        instance_id = case when u.to_cluster then null else runs.instance_id end,
        updated_at = now()
      from ${jsonRows(
        updates.map((u) => ({
          id: u.runId,
          status: u.status,
          pause_reason: u.pauseReason,
          checkpoint: u.checkpoint && checkpointCodec.encode(u.checkpoint),
          error: u.error,
          terminal: u.terminal ?? false,
          input_tokens: u.usage?.inputTokens,
          output_tokens: u.usage?.outputTokens,
          to_cluster: u.leave ?? false,
        })),
        "u",
        "id text, status text, pause_reason text, checkpoint jsonb, error jsonb, terminal boolean, input_tokens int, output_tokens int, to_cluster boolean",
      )}
      where runs.id = u.id)`);
  }
  if (waits.length > 0) {
    ctes.push(sql`new_interactions as (
      insert into interactions (id, tenant_id, run_id, thread_id, owner_id, kind, pause_reason, policy,
        tool_call_id, tool_name, tool_args, message, response_schema, detail, status, instance_id, expires_at, quorum,
        remind_at, escalate_at, escalate_to, on_expiry)
      select w.id, w.tenant_id, w.run_id, w.thread_id, w.owner_id, w.kind, w.pause_reason, w.policy,
        w.tool_call_id, w.tool_name, w.tool_args, w.message, w.response_schema, w.detail, 'pending', w.instance_id, w.expires_at, w.quorum,
        w.remind_at, w.escalate_at, w.escalate_to, w.on_expiry
      from ${jsonRows(
        waits.map((w) => ({
          id: w.id,
          tenant_id: w.tenantId,
          run_id: w.runId,
          thread_id: w.threadId,
          owner_id: w.ownerId,
          kind: w.kind,
          pause_reason: w.pauseReason,
          policy: w.policy,
          tool_call_id: w.toolCallId,
          tool_name: w.toolName,
          tool_args: w.toolArgs,
          message: w.message,
          response_schema: w.responseSchema,
          detail: w.detail && interactionDetailCodec.encode(w.detail),
          instance_id: w.instanceId,
          expires_at: w.expiresAt,
          quorum: w.quorum ?? 1,
          remind_at: w.remindAt,
          escalate_at: w.escalateAt,
          escalate_to: w.escalateTo,
          on_expiry: w.onExpiry ?? "reject",
        })),
        "w",
        `id text, tenant_id text, run_id text, thread_id text, owner_id text, kind text, pause_reason text, policy text,
        tool_call_id text, tool_name text, tool_args jsonb, message text, response_schema jsonb, detail jsonb, instance_id text,
        expires_at timestamptz, quorum int, remind_at timestamptz, escalate_at timestamptz, escalate_to text, on_expiry text`,
      )})`);
  }
  if (work.length > 0) {
    ctes.push(sql`new_jobs as (
      insert into jobs (id, tenant_id, owner_id, thread_id, run_id, agent_id, tool_call_id, tool_name, args, version, status)
      select j.id, j.tenant_id, j.owner_id, j.thread_id, j.run_id, j.agent_id, j.tool_call_id, j.tool_name, j.args, ${jobCodec.version}::smallint, 'in_progress'
      from ${jsonRows(
        work.map((j) => ({
          id: j.id,
          tenant_id: j.tenantId,
          owner_id: j.ownerId,
          thread_id: j.threadId,
          run_id: j.runId,
          agent_id: j.agentId,
          tool_call_id: j.toolCallId,
          tool_name: j.toolName,
          args: j.args,
        })),
        "j",
        "id text, tenant_id text, owner_id text, thread_id text, run_id text, agent_id text, tool_call_id text, tool_name text, args jsonb",
      )})`);
  }
  if (effects.length > 0) {
    // Once per tool call (the outbox's unique key): a second record for a call fails the write, loudly.
    ctes.push(sql`new_outbox as (
      insert into outbox (id, tenant_id, user_id, run_id, tool_call_id, kind, details, details_version, approved_by)
      select o.id, o.tenant_id, o.user_id, o.run_id, o.tool_call_id, o.kind, o.details, ${outboxDetailsCodec.version}::smallint, o.approved_by
      from ${jsonRows(
        effects.map((o) => ({
          id: o.id,
          tenant_id: o.tenantId,
          user_id: o.userId,
          run_id: o.runId,
          tool_call_id: o.toolCallId,
          kind: o.kind,
          details: o.details,
          approved_by: o.approvedBy,
        })),
        "o",
        "id text, tenant_id text, user_id text, run_id text, tool_call_id text, kind text, details jsonb, approved_by text",
      )})`);
  }
  if (grantUses.length > 0) {
    // Counted when the call ended (its result or its failure is stored), not when it was let
    // through: a call whose instance stalled and was taken over before it acted used nothing.
    // One row per use: two calls of one batch under the same grant count twice and are audited twice.
    const uses = jsonRows(
      grantUses.map((u) => ({
        grant_id: u.grantId,
        owner_id: u.ownerId,
        thread_id: u.threadId,
        run_id: u.runId,
        tool_call_id: u.toolCallId,
      })),
      "u",
      "grant_id text, owner_id text, thread_id text, run_id text, tool_call_id text",
    );
    ctes.push(sql`grant_uses as (select * from ${uses}),
    used_grants as (
      update approval_grants g set uses = g.uses + n.count, last_used_at = now()
      from (select grant_id, count(*)::int as count from grant_uses group by grant_id) n
      where g.id = n.grant_id
      returning g.id
    ), used_grants_audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select g.tenant_id, u.owner_id, 'grant.use', 'grant', g.id, 'used',
        jsonb_build_object('runId', u.run_id, 'toolCallId', u.tool_call_id, 'tool', g.tool_name, 'threadId', u.thread_id, 'grantedBy', g.granted_by)
      from grant_uses u join approval_grants g on g.id = u.grant_id
      order by g.tenant_id
    )`);
  }
  const prefix = ctes.length > 0 ? sql`with ${sql.join(ctes, sql`, `)} ` : sql``;
  await db.execute(sql`${prefix}${insertEvents(events)}`);
}
