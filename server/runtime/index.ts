/**
 * The runtime's public face. Everything outside `server/runtime` imports from here.
 */
import "server-only";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { appendRunEvents, type RunEventsEntry } from "@/server/db/queries/run-writes";
import { lastSeq } from "@/server/db/queries/runs";
import { measureTenantStorage } from "@/server/db/queries/storage";
import { accountService } from "./access";
import { auditService } from "./notify";
import { groupCommit } from "./log";
import { RunJournal, type EventStore } from "./log";
import type { Identity } from "./access";
import { Scheduler } from "./runs";
import { Mailboxes } from "./runs";
import { createCoordinator } from "./pause";
import { decisionLinkService } from "./pause";
import type { CredentialBroker } from "./access";
import { EventBus } from "./log";
import { signalQueued, type ClusterSignals } from "@/server/db/notifications";
import { open, seal, sealingKey } from "@/server/crypto/sealing";
import { bridgeCluster } from "./cluster";
import { createRouter, type Sealer } from "./cluster";
import { grantService } from "./policies";
import { interactionService } from "./pause";
import { SubscriptionSlots } from "./log";
import { instanceKeeper } from "./cluster";
import { createJobRunner, responseService } from "./runs";
import type { AgentRegistry } from "./agent";
import { resumeTokenKey } from "./pause";
import { runAccess } from "./access";
import { runFeed } from "./log";
import { runService } from "./runs";
import { threadService } from "./access";
import { countedListeners, createWebhookWorker } from "./notify";
import { webhookService, type WebhookSettings } from "./notify";

export interface RuntimeDeps {
  db: Database;
  agents: AgentRegistry;
  log: Logger;
  /** Pause between streamed text chunks (ms). */
  streamChunkMs: number;
  /** The server secret resume tokens are signed with (a key is derived from it). */
  serverSecret: string;
  /** How long an approval gate waits before it expires (default 15 minutes). */
  approvalTtlMs?: number;
  /** Planner steps allowed per run (default 20,000: a count to 9,999 takes that many). */
  maxSteps?: number;
  /** How often parked runs are checked for expiry (default 5 s). */
  sweepIntervalMs?: number;
  /** How many runs execute at once in this process; more wait in the scheduler's queue (default 100). */
  maxActiveRuns?: number;
  /** How many of one user's runs execute at once (default 10); the queue is fair across users and tenants. */
  maxActiveRunsPerUser?: number;
  /** The most messages one thread holds (default 1000); a new message beyond it is refused with THREAD_FULL. */
  maxThreadMessages?: number;
  /** The largest shared state a conversation may hold, in bytes of JSON (default 256 KiB). */
  maxStateBytes?: number;
  /** What one tenant may store, in bytes; a new run past it is QUOTA_EXCEEDED (absent or 0: no quota). */
  maxTenantStorageBytes?: number;
  /** How often tenants' storage is measured for the quota (default 5 min). */
  storageMeasureMs?: number;
  /** How many live feeds (tRPC subscriptions) one user may hold open at once (default 20). */
  maxSubscriptionsPerUser?: number;
  /** Background jobs: lease length (how soon a dead process's job is taken over) and poll interval. */
  jobLeaseMs?: number;
  jobPollMs?: number;
  /** OAuth credentials for tools that declare `auth` (absent: such tools fail with OAUTH_FAILED). */
  credentials?: CredentialBroker;
  /** How long an OAuth consent may take before its pause expires (default 10 minutes). */
  oauthTtlMs?: number;
  /** How long a remote agent's question waits for its answer (default 1 hour). */
  a2aTtlMs?: number;
  /** This process's instance id (default: a new one); PostgreSQL connections are named after it. */
  instanceId?: string;
  /** Heartbeat interval and the silence after which an instance is dead (defaults 2 s and 10 s). */
  instanceHeartbeatMs?: number;
  instanceTtlMs?: number;
  /** The database has this one process (the embedded one): every earlier instance is dead at start. */
  alone?: boolean;
  /** Process-held waits made durable: they continue from their checkpoint on any instance. */
  durableWaits?: readonly ("approval" | "client_tool")[];
  /** What the other instances on the database say (PostgreSQL); absent when this process is alone. */
  signals?: ClusterSignals;
  /** How long a freed slot trusts an empty look at the cluster's queue when no queued signal came (default 1 s). */
  queueRecheckMs?: number;
  /** Outgoing webhooks: local addresses allowed (tests), poll interval, POST timeout, retry schedule. */
  webhooks?: WebhookSettings;
  /** Where users reach Harbor (`HARBOR_PUBLIC_URL`): decision links are absolute URLs under it; absent, none are minted. */
  publicUrl?: string;
}

export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;
export const DEFAULT_OAUTH_TTL_MS = 10 * 60_000;
export const DEFAULT_A2A_TTL_MS = 60 * 60_000;

/** How long a stopping instance waits at least for its runs to reach a step and be handed back. */
const MIN_HAND_BACK_MS = 1_000;

/** Waits for `work`, at most `ms`. */
function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
}

/** Seals requests forwarded between instances with a key of their own, bound to the request's id. */
function routingSealer(serverSecret: string): Sealer {
  const key = sealingKey(serverSecret, "harbor.routing.v1");
  return { seal: (text, id) => seal(key, text, id), open: (sealed, id) => open(key, sealed, id) };
}

export function createRuntime(deps: RuntimeDeps) {
  const bus = new EventBus();
  const instanceId = deps.instanceId ?? randomUUID();
  const jobs = createJobRunner({
    db: deps.db,
    agents: deps.agents,
    bus,
    log: deps.log,
    instanceId,
    leaseMs: deps.jobLeaseMs ?? 10_000,
    pollMs: deps.jobPollMs ?? 1_000,
    maxConcurrent: 50,
    goOn: (runId) => runs.continueAfterWork(runId),
  });
  // Concurrent runs share their event writes (see group-commit.ts).
  const writeEvents = groupCommit((entries: readonly RunEventsEntry[]) => appendRunEvents(deps.db, entries));
  const store: EventStore = { insert: (runId, events, alongside) => writeEvents({ runId, events, alongside }) };
  const mailboxes = new Mailboxes();
  const scheduler = new Scheduler(deps.maxActiveRuns ?? 100, deps.maxActiveRunsPerUser ?? 10);
  const subscriptions = new SubscriptionSlots(deps.maxSubscriptionsPerUser ?? 20);
  const coordinator = createCoordinator({
    db: deps.db,
    log: deps.log,
    instanceId,
    approvalTtlMs: deps.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    oauthTtlMs: deps.oauthTtlMs ?? DEFAULT_OAUTH_TTL_MS,
    a2aTtlMs: deps.a2aTtlMs ?? DEFAULT_A2A_TTL_MS,
    resumeTokenKey: resumeTokenKey(deps.serverSecret),
    bus,
    onJobsStarted: () => jobs.kick(),
    journalFor: async (runId) => new RunJournal(runId, store, bus, await lastSeq(deps.db, runId)),
    onWaitsClosed: (closed) => runs.remoteWaitsClosed(closed),
    durableWaits: deps.durableWaits,
    clientToolOutput: (toolName) => {
      for (const agent of deps.agents.values()) {
        const tool = agent.tools.get(toolName);
        if (tool?.kind === "client") return tool.output;
      }
      return undefined;
    },
  });
  const heartbeatMs = deps.instanceHeartbeatMs ?? 2_000;
  const instances = instanceKeeper({
    db: deps.db,
    log: deps.log,
    instanceId,
    coordinator,
    bus,
    heartbeatMs,
    ttlMs: deps.instanceTtlMs ?? 10_000,
    alone: deps.alone ?? false,
  });
  const signals = deps.signals;
  const router = signals
    ? createRouter({
        db: deps.db,
        log: deps.log,
        instanceId,
        signals,
        sealer: routingSealer(deps.serverSecret),
        handle: (request) => runs.handleRouted(request),
        // A target that left without taking a request is noticed within a heartbeat.
        checkMs: heartbeatMs,
        isGone: async (id) => (await instances.state(id)) === "gone",
      })
    : undefined;
  const route = router && {
    forward: router.forward,
    state: (id: string) => instances.state(id),
    reclaim: () => instances.reclaim(),
  };
  const grants = grantService(deps.db, deps.agents);
  const runs = runService({
    ...deps,
    grants,
    lease: instances.lease,
    instanceId,
    bus,
    coordinator,
    store,
    mailboxes,
    scheduler,
    maxSteps: deps.maxSteps ?? 20_000,
    maxThreadMessages: deps.maxThreadMessages ?? 1_000,
    maxStateBytes: deps.maxStateBytes ?? 262_144,
    maxTenantStorageBytes: deps.maxTenantStorageBytes || undefined,
    route,
    signalQueued: signals ? () => signalQueued(deps.db, instanceId) : undefined,
  });
  signals?.onQueued(() => void runs.takeFromQueue(true));
  // Queued signals sent while the listening connection was down are lost: look as if told.
  signals?.onReconnected(() => void runs.takeFromQueue(true));
  // The inboxes' view of interaction changes: the webhook worker's listener (below) is no inbox, and
  // the cluster bridge reads other instances' changes only while an inbox watches here.
  const inboxes = countedListeners(coordinator.onChange);
  if (signals)
    bridgeCluster({ db: deps.db, log: deps.log, bus, signals, announce: coordinator.announce, watchingInboxes: inboxes.watching });
  const interactions = interactionService(deps.db, runs.resolveInteractions, inboxes.onChange, subscriptions, deps.serverSecret);
  const decisionLinks = decisionLinkService({
    db: deps.db,
    serverSecret: deps.serverSecret,
    publicUrl: deps.publicUrl,
    getInteraction: interactions.get,
    resolve: runs.resolveInteractions,
  });
  const webhookWorker = createWebhookWorker({
    db: deps.db,
    log: deps.log,
    instanceId,
    serverSecret: deps.serverSecret,
    settings: deps.webhooks,
    prepare: decisionLinks.prepare,
  });
  // A pause changed here (its webhook messages are committed with it): deliver them now, not at the next poll.
  coordinator.onChange((change) => webhookWorker.kick(change.tenantId));
  const sweep = setInterval(() => {
    coordinator.sweepExpired().catch((error: unknown) => deps.log.error({ err: error }, "expiry sweep failed"));
  }, deps.sweepIntervalMs ?? 5_000);
  sweep.unref();
  // The storage quota reads the last measure: taken at start, then every storageMeasureMs (shared
  // between instances: a measure younger than half the interval is not taken again).
  const storageMeasureMs = deps.storageMeasureMs ?? 300_000;
  const measureStorage = () =>
    deps.maxTenantStorageBytes
      ? measureTenantStorage(deps.db, storageMeasureMs / 2).catch((error: unknown) =>
          deps.log.error({ err: error }, "could not measure the tenants' storage"),
        )
      : Promise.resolve();
  let measuring: NodeJS.Timeout | undefined;

  return {
    instanceId,
    accounts: accountService(deps.db),
    /** The hash-chained audit log's export (admins). */
    audit: auditService(deps.db),
    threads: threadService(deps.db, deps.serverSecret),
    /** Signed one-time decision links: minted into webhook messages, read and used by their approver. */
    decisionLinks,
    /** Standing approvals: listed for their owner and grantor (admins: the tenant's), revocable. */
    grants: { list: grants.list, revoke: grants.revoke },
    interactions,
    /**
     * The OAuth legs of a consent pause: `open` when the owner starts it (its provider, scopes and
     * expiry); `hold` before the callback exchanges a code (so a refused callback changes nothing,
     * and only one completes); `release` when the exchange failed; `complete` once the credential
     * is stored (or the user declined at the provider, which cancels the pause).
     */
    consent: {
      open: async (identity: Identity, interactionId: string) => {
        const row = await coordinator.openConsent(identity, interactionId);
        return {
          interactionId: row.id,
          threadId: row.threadId,
          provider: row.detail?.provider ?? "",
          scopes: row.detail?.scopes ?? [],
          expiresAt: row.expiresAt,
        };
      },
      hold: (identity: Identity, interactionId: string, provider: string) => coordinator.holdOpenConsent(identity, interactionId, provider),
      release: (interactionId: string) => coordinator.releaseConsent(interactionId),
      complete: (identity: Identity, interactionId: string, outcome: "connected" | "declined") =>
        runs.resolveInteractions(
          identity,
          [{ interactionId, status: outcome === "connected" ? "resolved" : "cancelled" }],
          "oauth_callback",
        ),
    },
    startRun: runs.startRun,
    runs: runAccess(deps.db, runs.steer),
    responses: responseService(deps.db, deps.serverSecret),
    webhooks: webhookService(deps.db, deps.serverSecret, deps.webhooks, webhookWorker.registered),
    /**
     * Joins the instances on the database — reclaiming what dead ones (or, alone, earlier processes)
     * left — and starts working on background jobs; call once at start-up, before serving.
     */
    start: async () => {
      await instances.start();
      // Not awaited: a large database's measure must not hold up serving (the quota acts once it is taken).
      void measureStorage();
      measuring = setInterval(() => void measureStorage(), storageMeasureMs);
      measuring.unref();
      jobs.start();
      webhookWorker.start();
      // Runs may wait in the cluster's queue with nobody told since (a stopped instance handed them over).
      if (signals) void runs.takeFromQueue(true);
    },
    /** Reclaims dead instances now (the heartbeat does it every interval). */
    reclaim: () => instances.reclaim(),
    /** Live events of one run, from now until its transport run ends. */
    follow: (runId: string) => bus.follow(runId),
    /** A run's logged events after `afterSeq`, then live ones until it ends (owner or tenant admin). */
    watchRun: runFeed(deps.db, bus, subscriptions).watch,
    parkedCount: () => coordinator.parkedCount,
    /** One sweep now, as the interval would: deadlines that fell due act, expired waits close. */
    sweepNow: () => coordinator.sweepExpired(),
    /** The scheduler's queue, for operators. */
    schedulerQueue: (identity: Identity) => scheduler.snapshot(identity.tenantId),
    idle: async () => {
      await runs.idle();
      await jobs.idle();
      await webhookWorker.idle();
    },
    /**
     * A clean stop (SIGTERM). With other instances on the database it hands its work to them at
     * once: its row says it is stopping (its durable waits are then answered wherever they arrive)
     * and its queued runs go to the cluster's queue. Runs in flight get `graceMs` to finish; those
     * still executing are then handed back at their next step (waited for up to `graceMs` again,
     * at least a second) and go on elsewhere from their checkpoint. Then it starts and continues
     * nothing more (`INSTANCE_STOPPING`), and forwarded requests it has not decided go back to
     * their senders. Last, it releases what it still holds — process-held waits end `lost` unless
     * durable, runs that reached no step in time end `INSTANCE_LOST` — and leaves. Alone (the
     * embedded database), runs in flight get `graceMs`, and the rest ends as it would.
     */
    stop: async (graceMs: number) => {
      runs.stopTaking();
      const handed = await instances.handOff({ toCluster: signals !== undefined });
      if (signals) {
        runs.handOffWaiting();
        if (handed > 0) await signalQueued(deps.db, instanceId);
      }
      clearInterval(sweep);
      clearInterval(measuring);
      void jobs.stop();
      void webhookWorker.stop();
      await within(runs.idle(), graceMs);
      if (signals) {
        runs.handBackExecuting();
        // A step is short: even with no grace period, a run gets this long to reach the next one.
        const handBackMs = Math.max(graceMs, MIN_HAND_BACK_MS);
        const handedBackBy = Date.now() + handBackMs;
        await within(runs.idle(), handBackMs);
        runs.close();
        await router?.close();
        // What was let in before the close (an answer decided here) is handed back at its first step.
        await within(runs.idle(), Math.max(handedBackBy - Date.now(), MIN_HAND_BACK_MS));
      }
      runs.close();
      await instances.release({ toCluster: signals !== undefined });
      await instances.stop({ leave: true });
    },
    /** Stops background work (the expiry sweep, taking new jobs and queued runs, heartbeats). */
    close: () => {
      runs.stopTaking();
      clearInterval(sweep);
      clearInterval(measuring);
      void jobs.stop();
      void webhookWorker.stop();
      void instances.stop();
    },
  };
}

export type Runtime = ReturnType<typeof createRuntime>;

export {
  HarborError,
  NotFoundError,
  ForbiddenError,
  InvalidInputError,
  StaleCredentialError,
  ToolContextLostError,
  asHarborError,
} from "./errors";
export type { ErrorCode } from "./errors";
export { isRemembered, type Identity, type VerifiedIdentity } from "./access";
export { hasRole, rolesOf } from "./access";
export type { InterruptView, LoggedEvent, RunEvent } from "./log";
export type { AgentDefinition, AgentRegistry, ModelPart, PlannedCall, Planner, PlannerContext, PlannerDecision } from "./agent";
export { modelIdOf } from "./agent";
export type { RunState, TranscriptMessage } from "./agent";
export type { AbandonedRun, IncomingMessage, RefusedRun, StartRunRequest, StartedRun } from "./runs";
export type { ResolutionInput } from "./pause";
export { SteeringInstruction } from "./runs";
export { APPROVAL_RESPONSE_SCHEMA, ApprovalAnswer } from "./pause";
export { GrantRequest, type StandingApproval } from "./policies";
export type { InteractionQuery, InteractionView } from "./pause";
export type { CredentialBroker, CredentialOwner } from "./access";
export {
  privateInputTool,
  tool,
  type ClientToolDefinition,
  type DeadlinePolicy,
  type GateSpan,
  type GrantableField,
  type JobProgress,
  type PrivateInputToolDefinition,
  type RemoteAgentToolDefinition,
  type ServerToolDefinition,
  type RemoteAgentPort,
  type RemoteAgentResult,
  type RemoteOutcome,
  type RemoteSend,
  type ToolContext,
  type ToolDefinition,
  type ToolRegistry,
} from "./agent";
export { hashToken, MAX_TOKEN_DAYS, TOKEN_PREFIX } from "./access";
export { chunkText } from "./runs";
export { findUnstorableText, isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/domain";
export { MAX_THREAD_TITLE } from "./access";
export { WEBHOOK_EVENTS, type WebhookEvent, type WebhookSettings, type WebhookView } from "./notify";
export { AUDIT_EXPORT_MAX_DAYS, AUDIT_EXPORT_PAGE_ROWS, AuditExportFormat, AuditExportRequest } from "./notify";
export { DECISION_LINK_PATH, type DecisionLink, type LinkDecision, type LinkState } from "./pause";
