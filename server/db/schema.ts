/**
 * The one Drizzle pg-core schema. The same migrations run on embedded PGlite and on PostgreSQL.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from "drizzle-orm/pg-core";
import { storedJsonb, type StoredRecord } from "./codecs/column";
import { mcpCatalogCodec } from "./codecs/mcp-catalog";
import { interactionDetailCodec } from "./codecs/interaction-detail";

import {
  type CredentialKind,
  type EscalationGroup,
  type ExpiryDefault,
  type ErrorCode,
  type GrantScope,
  type InteractionKind,
  type InteractionStatus,
  type JobStatus,
  type MessageRole,
  type OutboxKind,
  type PauseReason,
  type ResolverPolicy,
  type Role,
  type RunEvent,
  type RunStatus,
  type StoredToolCall,
  type WebhookDeliveryStatus,
  type WebhookEvent,
  type Vote,
  CREDENTIAL_KINDS,
  ESCALATION_GROUPS,
  EXPIRY_DEFAULTS,
  GRANT_SCOPES,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  JOB_STATUSES,
  OUTBOX_KINDS,
  PAUSE_REASONS,
  RESOLVER_POLICIES,
  WEBHOOK_DELIVERY_STATUSES,
} from "@/server/domain";

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));

const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const tenants = pgTable("tenants", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role").$type<Role>().notNull(),
    /** Null for people who sign in only with single sign-on (created at their first sign-in). */
    passwordHash: text("password_hash"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    index("users_tenant_idx").on(t.tenantId),
    check("users_role_check", sql`${t.role} in ('member', 'approver', 'admin')`),
  ],
);

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the token: tokens carry 256 random bits, so a fast hash cannot be brute-forced. */
    tokenHash: text("token_hash").notNull(),
    /** The first characters of the token, shown in listings so users can tell tokens apart. */
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /** After this the token is refused (401). Null only for tokens made before tokens expired. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("api_tokens_hash_unique").on(t.tokenHash), index("api_tokens_user_idx").on(t.userId)],
);

export const threads = pgTable(
  "threads",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /**
     * The id the client chose, when another tenant held it and the thread is stored under the
     * tenant's own id for it (runtime/threads.ts `tenantThreadId`); null when `id` is the client's.
     */
    clientId: text("client_id"),
    /** The AG-UI shared state of the conversation, echoed in STATE_SNAPSHOT. */
    state: jsonb("state").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("threads_owner_idx").on(t.tenantId, t.ownerId, t.updatedAt),
    index("threads_tenant_updated_idx").on(t.tenantId, t.updatedAt),
  ],
);

/**
 * Large shared states of snapshot events, once per thread and content (migration 0021's trigger
 * writes them as the event is inserted; the event keeps `stateHash`).
 */
export const snapshotStates = pgTable(
  "snapshot_states",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    hash: text("hash").notNull(),
    state: jsonb("state").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: "snapshot_states_pkey", columns: [t.threadId, t.hash] })],
);

/** What each tenant stores, as last measured (queries/storage.ts): runs over the quota are refused. */
export const tenantStorage = pgTable("tenant_storage", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id, { onDelete: "cascade" }),
  bytes: bigint("bytes", { mode: "number" }).notNull(),
  measuredAt: timestamp("measured_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const messages = pgTable(
  "messages",
  {
    /** Insertion order across the whole table; orders a thread's messages. */
    position: bigint("position", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    id: text("id").notNull(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    runId: text("run_id"),
    role: text("role").$type<MessageRole>().notNull(),
    content: text("content").notNull(),
    /** An assistant message's tool calls. */
    toolCalls: jsonb("tool_calls").$type<StoredToolCall[]>(),
    /** A tool message's call. */
    toolCallId: text("tool_call_id"),
    /**
     * Set when an edit or a regenerate dropped the message from its conversation: the position of
     * the thread's last message at that moment. The row stays — runs' snapshots are rebuilt from
     * it (a snapshot through a message at or before this position still shows it), and a client
     * that sends its old id again cannot bring it back. Null: in the conversation.
     */
    supersededAtPosition: bigint("superseded_at_position", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("messages_thread_id_unique").on(t.threadId, t.id),
    // A run's own input (the console's label for it): its first user message, found by the run.
    index("messages_run_user_idx")
      .on(t.runId, t.position)
      .where(sql`${t.role} = 'user'`),
    // A thread's messages in order, and a run's place in its thread (a regenerated run's question).
    index("messages_thread_position_idx").on(t.threadId, t.position),
  ],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    /** The AG-UI `runId` of the transport run that started this run. */
    transportRunId: text("transport_run_id").notNull(),
    parentRunId: text("parent_run_id"),
    priority: integer("priority").notNull().default(0),
    pauseReason: text("pause_reason"),
    /** The instance executing the run (or that last did): its death ends the run `INSTANCE_LOST`. */
    instanceId: text("instance_id"),
    /** The run's serializable state at its last checkpoint. */
    /** Read through codecs/checkpoint.ts when needed (queries/runs.ts `findRun`, the continuation). */
    checkpoint: jsonb("checkpoint").$type<StoredRecord>(),
    error: jsonb("error").$type<{ code: ErrorCode; message: string }>(),
    /** Tokens a model spent on the run (prompt and completion), as of its last write. */
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    /** The W3C `traceparent` of the run's first stretch, when tracing was on: later stretches, on any instance, join its trace. */
    traceParent: text("trace_parent"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("runs_tenant_status_idx").on(t.tenantId, t.status),
    // The console's list: a tenant's newest runs first, a page at a time.
    index("runs_tenant_created_idx").on(t.tenantId, t.createdAt),
    index("runs_thread_idx").on(t.threadId),
    index("runs_parent_idx").on(t.parentRunId),
    index("runs_instance_status_idx").on(t.instanceId, t.status),
    check(
      "runs_status_check",
      sql`${t.status} in ('queued', 'running', 'paused', 'completed', 'failed', 'cancelled', 'rejected', 'expired', 'lost')`,
    ),
  ],
);

export const runEvents = pgTable(
  "run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** Per-run sequence number, from 1, without gaps. */
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    data: jsonb("data").$type<RunEvent>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Null for actions taken by Harbor itself (e.g. start-up recovery). */
    actorId: text("actor_id"),
    action: text("action").notNull(),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id").notNull(),
    outcome: text("outcome").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    /**
     * The hash chain, set by the database's insert trigger whatever the insert says (see the
     * migration `0012_audit_chain.sql` and the README's "Audit"): the row's place in its tenant's
     * chain (from 1, without gaps), the previous row's hash (64 zeros for the first), and
     * `sha256(prev_hash || canonical content)` in hex. Rows are append-only.
     */
    seq: bigint("seq", { mode: "number" }).notNull().default(0),
    prevHash: text("prev_hash").notNull().default(""),
    hash: text("hash").notNull().default(""),
  },
  (t) => [index("audit_log_tenant_idx").on(t.tenantId, t.createdAt), uniqueIndex("audit_log_chain_idx").on(t.tenantId, t.seq)],
);

/** One wait of a run on the coordinator: the record every resolution rule is checked against. */
export const interactions = pgTable(
  "interactions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** The scope's session: the thread the run belongs to. */
    threadId: text("thread_id").notNull(),
    /** The scope's user: the run's owner, who requested the gated action. */
    ownerId: text("owner_id").notNull(),
    kind: text("kind").$type<InteractionKind>().notNull(),
    pauseReason: text("pause_reason").$type<PauseReason>(),
    policy: text("policy").$type<ResolverPolicy>().notNull(),
    toolCallId: text("tool_call_id"),
    toolName: text("tool_name"),
    toolArgs: jsonb("tool_args").$type<Record<string, unknown>>(),
    message: text("message"),
    /** JSON Schema of the answer (a private form's fields; never a value). */
    responseSchema: jsonb("response_schema").$type<Record<string, unknown>>(),
    /** What the reason needs to be shown and answered: an OAuth pause's provider and URL, a remote agent's question. */
    detail: storedJsonb("detail", interactionDetailCodec),
    status: text("status").$type<InteractionStatus>().notNull(),
    /** The serving process holding the waiting invocation. */
    instanceId: text("instance_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    /**
     * What is kept of the answer: an approval's `{ approved, reason? }`, a browser tool's
     * `{ output }`, a private form's or a remote agent's credential `{ submitted: true }` (never the
     * value), an OAuth consent's `{ connected: true }`, a remote agent's `{ text }`, a job's `{ status }`.
     */
    decision: jsonb("decision").$type<{
      approved?: boolean;
      reason?: string;
      output?: unknown;
      submitted?: true;
      status?: string;
      /** An OAuth consent's callback completed (`connecting` while it exchanges the code). */
      connected?: true;
      connecting?: true;
      /** The owner's answer to a remote agent's question. */
      text?: string;
      /** A quorum gate's votes, as they stood when it was decided. */
      votes?: Vote[];
      /** The standing approval given with this approval (`approval_grants.id`). */
      grantId?: string;
    }>(),
    resolvedBy: text("resolved_by"),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, mode: "date" }),
    /** How many approvers must approve an `approvers` gate; each approval is a vote until then. */
    quorum: integer("quorum").notNull().default(1),
    /** The votes cast so far, in order (kept on the row, so a vote and its count are one compare-and-set). */
    votes: jsonb("votes").$type<Vote[]>().notNull().default([]),
    /**
     * The gate's deadline policy, as timers that are rows (any instance acts on them, also after a
     * restart): when to remind those who may decide, when to escalate to `escalateTo`, and the safe
     * default applied at `expiresAt`. `remindedAt`/`escalatedAt` record that it happened (once).
     */
    remindAt: timestamp("remind_at", { withTimezone: true, mode: "date" }),
    remindedAt: timestamp("reminded_at", { withTimezone: true, mode: "date" }),
    escalateAt: timestamp("escalate_at", { withTimezone: true, mode: "date" }),
    escalateTo: text("escalate_to").$type<EscalationGroup>(),
    escalatedAt: timestamp("escalated_at", { withTimezone: true, mode: "date" }),
    onExpiry: text("on_expiry").$type<ExpiryDefault>().notNull().default("reject"),
    createdAt: createdAt(),
  },
  (t) => [
    index("interactions_thread_pending_idx")
      .on(t.threadId)
      .where(sql`${t.status} = 'pending'`),
    index("interactions_tenant_idx").on(t.tenantId, t.createdAt),
    index("interactions_run_idx").on(t.runId),
    check("interactions_kind_check", sql`${t.kind} in (${inList(INTERACTION_KINDS)})`),
    check("interactions_reason_check", sql`${t.pauseReason} is null or ${t.pauseReason} in (${inList(PAUSE_REASONS)})`),
    check("interactions_status_check", sql`${t.status} in (${inList(INTERACTION_STATUSES)})`),
    check("interactions_policy_check", sql`${t.policy} in (${inList(RESOLVER_POLICIES)})`),
    check("interactions_escalate_to_check", sql`${t.escalateTo} is null or ${t.escalateTo} in (${inList(ESCALATION_GROUPS)})`),
    check("interactions_on_expiry_check", sql`${t.onExpiry} in (${inList(EXPIRY_DEFAULTS)})`),
    index("interactions_remind_due_idx")
      .on(t.remindAt)
      .where(sql`${t.status} = 'pending' and ${t.remindedAt} is null`),
    index("interactions_escalate_due_idx")
      .on(t.escalateAt)
      .where(sql`${t.status} = 'pending' and ${t.escalatedAt} is null`),
  ],
);

/**
 * Standing approvals: "approve, and allow this tool within these bounds" — for the conversation
 * (`thread_id` set) or for the owner's runs until `expires_at`. A later call of the same tool, at
 * the same version, for the same agent and owner, with arguments within `bounds`, passes its gate
 * without a pause while the grant is neither expired nor revoked.
 */
export const approvalGrants = pgTable(
  "approval_grants",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Whose runs may use it: the requester of the gate it was given on. */
    ownerId: text("owner_id").notNull(),
    /** The conversation it is limited to; null for an hours-scoped grant (any of the owner's conversations). */
    threadId: text("thread_id"),
    scope: text("scope").$type<GrantScope>().notNull(),
    agentId: text("agent_id").notNull(),
    toolName: text("tool_name").notNull(),
    /** The tool's version when it was granted: a changed tool voids the grant. */
    toolVersion: text("tool_version").notNull(),
    /** Read through codecs/grant-bounds.ts with `boundsVersion`. */
    bounds: jsonb("bounds").$type<StoredRecord>().notNull(),
    boundsVersion: smallint("bounds_version").notNull().default(1),
    /** The gate whose approval gave it. */
    interactionId: text("interaction_id").notNull(),
    grantedBy: text("granted_by").notNull(),
    uses: integer("uses").notNull().default(0),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    revokedBy: text("revoked_by"),
  },
  (t) => [
    // The run loop's one lookup per gated call: live grants of this owner for this tool.
    index("approval_grants_live_idx")
      .on(t.tenantId, t.ownerId, t.toolName)
      .where(sql`${t.revokedAt} is null`),
    index("approval_grants_tenant_idx").on(t.tenantId, t.createdAt),
    check("approval_grants_scope_check", sql`${t.scope} in (${inList(GRANT_SCOPES)})`),
  ],
);

/** The concierge's side effects: what a gated action did, once per tool call. */
export const outbox = pgTable(
  "outbox",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    runId: text("run_id").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    kind: text("kind").$type<OutboxKind>().notNull(),
    /** Read through codecs/outbox.ts with `detailsVersion`. */
    details: jsonb("details").$type<StoredRecord>().notNull(),
    detailsVersion: smallint("details_version").notNull().default(1),
    /** Who approved the action that wrote this row. */
    approvedBy: text("approved_by"),
    createdAt: createdAt(),
  },
  (t) => [
    // The last line of "exactly once": a tool call can write its row only once, whatever retries.
    uniqueIndex("outbox_tool_call_unique").on(t.runId, t.toolCallId),
    index("outbox_user_idx").on(t.tenantId, t.userId, t.createdAt),
    check("outbox_kind_check", sql`${t.kind} in (${inList(OUTBOX_KINDS)})`),
  ],
);

/**
 * Credentials users connect (an API key, an OAuth grant's tokens), encrypted at rest with a key
 * derived from the server secret; one per (tenant, user, provider).
 */
export const credentials = pgTable(
  "credentials",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    kind: text("kind").$type<CredentialKind>().notNull().default("api_key"),
    /** The scopes an OAuth grant holds (not secret: shown to the user beside the provider). */
    scopes: text("scopes"),
    /** AES-256-GCM: base64url of iv ‖ ciphertext ‖ tag. */
    sealed: text("sealed").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId, t.provider] }),
    check("credentials_kind_check", sql`${t.kind} in (${inList(CREDENTIAL_KINDS)})`),
  ],
);

/**
 * Durable background work of external tools (a response, polled by its id). Taken by one serving
 * process at a time under a lease it renews while working; a lease that runs out (its process died)
 * lets another take the job over, and completion is a compare-and-set, so a result lands once.
 */
export const jobs = pgTable(
  "jobs",
  {
    /** The response id clients poll; also the id of the job's `external_wait` interaction. */
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    ownerId: text("owner_id").notNull(),
    threadId: text("thread_id").notNull(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    toolName: text("tool_name").notNull(),
    /** Read through codecs/job.ts with `version`, as are progress, output and error. */
    args: jsonb("args").$type<StoredRecord>().notNull(),
    version: smallint("version").notNull().default(1),
    status: text("status").$type<JobStatus>().notNull(),
    progress: jsonb("progress").$type<{ step: number; total: number; label: string }>(),
    output: jsonb("output").$type<unknown>(),
    error: jsonb("error").$type<{ code: ErrorCode; message: string }>(),
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    attempts: integer("attempts").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("jobs_due_idx").on(t.status, t.leaseUntil), check("jobs_status_check", sql`${t.status} in (${inList(JOB_STATUSES)})`)],
);

/**
 * Harbor processes sharing the database. Each beats every `HARBOR_INSTANCE_HEARTBEAT_MS`; one whose
 * heartbeat is older than `HARBOR_INSTANCE_TTL_MS` is dead, and exactly one survivor reclaims what it
 * held (`reclaimed_by`).
 */
export const instances = pgTable("instances", {
  id: text("id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  /** Set when the instance stops on purpose (SIGTERM): it takes no new work. */
  stoppingAt: timestamp("stopping_at", { withTimezone: true, mode: "date" }),
  reclaimedBy: text("reclaimed_by"),
  reclaimedAt: timestamp("reclaimed_at", { withTimezone: true, mode: "date" }),
});

/**
 * An answer or steering instruction that reached an instance other than the one holding its run,
 * forwarded to the owner (`LISTEN/NOTIFY` carries only this row's id). The request is sealed (it may
 * carry a private form's value) and the row is deleted once answered.
 */
export const routedRequests = pgTable("routed_requests", {
  id: text("id").primaryKey(),
  targetInstance: text("target_instance").notNull(),
  fromInstance: text("from_instance").notNull(),
  /** The request, sealed with the server secret (AES-256-GCM). */
  sealed: text("sealed").notNull(),
  /** The owner's answer (never a private value): `{ ok }` or `{ error: { code, message, details } }`. */
  reply: jsonb("reply").$type<Record<string, unknown>>(),
  createdAt: createdAt(),
});

/**
 * Signed-in browser sessions. The session cookie (a JWT) names one of these; signing out revokes it
 * here, so the old cookie stops working at once.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /** A single sign-on session: the provider and subject it came from (null for a password sign-in). */
    ssoIssuer: text("sso_issuer"),
    ssoSubject: text("sso_subject"),
    /** The provider's tokens (refresh and access), sealed with the server secret for this session alone. */
    ssoSealed: text("sso_sealed"),
    /** When the provider was last asked for this session's claims (its role). */
    ssoCheckedAt: timestamp("sso_checked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/**
 * Single sign-on identities: a provider's subject (`sub`) and the user it signs in as. Keyed by
 * (issuer, subject), never by email, so a subject whose email changes still signs in to its own user;
 * one subject per user and provider. `email` is the provider's last word on it (the user's own email
 * is not changed by it).
 */
export const userIdentities = pgTable(
  "user_identities",
  {
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    createdAt: createdAt(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), uniqueIndex("user_identities_user_issuer_idx").on(t.userId, t.issuer)],
);

/**
 * Failed sign-ins per key, for the sign-in throttle on PostgreSQL (rate-limiter-flexible's
 * RateLimiterPostgres reads and writes it; its column names are the library's). The key is an HMAC
 * of the normalised email and the client address, never the email itself; `expire` is epoch ms.
 * The embedded database keeps these counters in memory instead (one process).
 */
export const signInFailures = pgTable("sign_in_failures", {
  key: varchar("key", { length: 255 }).primaryKey(),
  points: integer("points").notNull().default(0),
  expire: bigint("expire", { mode: "number" }),
});

/**
 * A tenant's outgoing webhook: where `pause.*` events are POSTed, signed the Standard Webhooks way.
 * The signing secret is kept sealed with a key derived from the server secret (it must be usable
 * to sign, so it cannot be hashed); it is shown once, when the webhook is created.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** The events it receives: a non-empty subset of `WEBHOOK_EVENTS`. */
    events: text("events").array().$type<WebhookEvent[]>().notNull(),
    /** AES-256-GCM of the `whsec_…` secret, bound to the webhook's id. */
    secretSealed: text("secret_sealed").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_tenant_idx").on(t.tenantId)],
);

/**
 * A tenant's MCP server (Streamable HTTP): its name (tools are offered as `<name>__<tool>`), URL,
 * static headers sealed at rest (AES-256-GCM bound to the server's id; never returned), and what
 * Harbor knows of its tools with the gates its admins chose (`catalog`).
 */
export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    url: text("url").notNull(),
    headersSealed: text("headers_sealed"),
    catalog: storedJsonb("catalog", mcpCatalogCodec).notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("mcp_servers_tenant_name_idx").on(t.tenantId, t.name)],
);

/**
 * The durable outbox of webhook messages: one row per (event, webhook), written by a trigger on
 * `interactions` in the same transaction as the change it describes, delivered by any serving
 * process under a lease (`FOR UPDATE SKIP LOCKED`), retried with backoff until `failed`.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    /** The `webhook-id` header: the same for every attempt, so receivers can drop repeats. */
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    tenantId: text("tenant_id").notNull(),
    event: text("event").$type<WebhookEvent>().notNull(),
    /** The JSON body: `{ type, timestamp, data }` — ids, kind, status and tool name, never arguments or values. */
    payload: jsonb("payload").$type<StoredRecord>().notNull(),
    /** The payload's version (codecs/webhook-payload.ts); the trigger writes the current one. */
    payloadVersion: smallint("payload_version").notNull().default(1),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Held by one process while it POSTs (longer than the request's timeout). */
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
    index("webhook_deliveries_pending_idx")
      .on(t.tenantId, t.webhookId, t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_leased_idx")
      .on(t.leaseUntil)
      .where(sql`${t.status} = 'pending' and ${t.leaseUntil} is not null`),
    check("webhook_deliveries_status_check", sql`${t.status} in (${inList(WEBHOOK_DELIVERY_STATUSES)})`),
  ],
);

/** Each POST of a delivery: the delivery log admins read. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    instanceId: text("instance_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);

/**
 * Decision links that were used: one row per link (its JWT id), inserted once — a second use of the
 * same link finds the row and is refused. The link itself (a signed token) is never stored.
 */
export const decisionLinkUses = pgTable(
  "decision_link_uses",
  {
    /** The link's `jti`: one per approver and gate, shared by its approve and reject URLs. */
    jti: text("jti").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    interactionId: text("interaction_id")
      .notNull()
      .references(() => interactions.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    /** What the link decided: `approve` or `reject`. */
    decision: text("decision").$type<"approve" | "reject">().notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("decision_link_uses_interaction_idx").on(t.interactionId),
    check("decision_link_uses_decision_check", sql`${t.decision} in ('approve', 'reject')`),
  ],
);

/**
 * A tenant's own policies, set by its admins; a null column follows the deployment's setting.
 * Retention: conversations (and their runs, events, interactions, jobs) and audit rows older than
 * this many days are deleted by the sweep; 0 keeps them.
 */
export const tenantPolicies = pgTable(
  "tenant_policies",
  {
    tenantId: text("tenant_id")
      .primaryKey()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationRetentionDays: integer("conversation_retention_days"),
    auditRetentionDays: integer("audit_retention_days"),
    /** Model token budgets (null: the deployment's; 0: none): the tenant's, and each of its users', per UTC day and month. */
    tenantDailyTokens: bigint("tenant_daily_tokens", { mode: "number" }),
    tenantMonthlyTokens: bigint("tenant_monthly_tokens", { mode: "number" }),
    userDailyTokens: bigint("user_daily_tokens", { mode: "number" }),
    userMonthlyTokens: bigint("user_monthly_tokens", { mode: "number" }),
    updatedBy: text("updated_by"),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    check(
      "tenant_policies_conversation_days_check",
      sql`${t.conversationRetentionDays} is null or ${t.conversationRetentionDays} between 0 and 36500`,
    ),
    check(
      "tenant_policies_budgets_check",
      sql`coalesce(${t.tenantDailyTokens}, 0) >= 0 and coalesce(${t.tenantMonthlyTokens}, 0) >= 0 and coalesce(${t.userDailyTokens}, 0) >= 0 and coalesce(${t.userMonthlyTokens}, 0) >= 0`,
    ),
    check("tenant_policies_audit_days_check", sql`${t.auditRetentionDays} is null or ${t.auditRetentionDays} between 0 and 36500`),
  ],
);

/**
 * Where a tenant's audit chain now enters: its rows up to `seq` were removed by retention, and the
 * first row kept has `prev_hash` = `hash`. Written before the rows go (the delete trigger checks it).
 */
export const auditAnchors = pgTable(
  "audit_anchors",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    hash: text("hash").notNull(),
    removed: integer("removed").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: "audit_anchors_pk", columns: [t.tenantId, t.seq] })],
);

/** Cluster-wide chores (the retention sweep): who holds each, until when, and how it last went. */
export const maintenance = pgTable("maintenance", {
  name: text("name").primaryKey(),
  holder: text("holder"),
  leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
  lastRunAt: timestamp("last_run_at", { withTimezone: true, mode: "date" }),
  lastResult: jsonb("last_result").$type<Record<string, unknown>>(),
});

/** Tokens models reported, per tenant, user and UTC day: what budgets are checked against before each model request. */
export const modelUsage = pgTable(
  "model_usage",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    requests: integer("requests").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "model_usage_pk", columns: [t.tenantId, t.userId, t.day] }),
    index("model_usage_tenant_day_idx").on(t.tenantId, t.day),
  ],
);
