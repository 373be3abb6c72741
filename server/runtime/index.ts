/**
 * The runtime's public face. Everything outside `server/runtime` imports from here.
 */
import "server-only";
import { randomUUID } from "node:crypto";
import { accountService, runAccess, threadService, type Identity } from "./access";
import { auditService, webhookService } from "./notify";
import { responseService } from "./runs";
import {
  composeCluster,
  composeLifecycle,
  composeRetention,
  composeLog,
  composeMcp,
  composeNotify,
  composePause,
  composeRuns,
  consentLegs,
  type RuntimeDeps,
} from "./wiring";

export { DEFAULT_A2A_TTL_MS, DEFAULT_APPROVAL_TTL_MS, DEFAULT_OAUTH_TTL_MS, type RuntimeDeps } from "./wiring";

/**
 * Builds the runtime room by room, each on the rooms below it: log & journal, pause, cluster, runs,
 * notify, then the runtime's life (timers, start and stop). Access needs only the database.
 */
export function createRuntime(deps: RuntimeDeps) {
  const instanceId = deps.instanceId ?? randomUUID();
  const log = composeLog(deps);
  // The pause and cluster rooms call into the runs room, which is built on them: these callbacks
  // reach it once it exists (nothing calls them while the runtime is being built).
  const pause = composePause(
    deps,
    { instanceId, log },
    {
      onJobsStarted: () => runs.jobs.kick(),
      onWaitsClosed: (closed) => runs.runs.remoteWaitsClosed(closed),
    },
  );
  const cluster = composeCluster(deps, { instanceId, log, pause }, (request) => runs.runs.handleRouted(request));
  const mcp = composeMcp(deps);
  const runs = composeRuns(deps, { instanceId, log, pause, cluster, mcp });
  const notify = composeNotify(deps, { instanceId, log, pause, cluster, runs });
  const retention = composeRetention(deps, instanceId);
  const life = composeLifecycle(deps, { instanceId, pause, cluster, runs, notify, retention });
  const { coordinator } = pause;
  const { grants, scheduler, budgets } = runs;

  return {
    instanceId,
    accounts: accountService(deps.db),
    /** The hash-chained audit log's export (admins). */
    audit: auditService(deps.db),
    threads: threadService(deps.db, deps.serverSecret),
    /** Signed one-time decision links: minted into webhook messages, read and used by their approver. */
    decisionLinks: notify.decisionLinks,
    /** Standing approvals: listed for their owner and grantor (admins: the tenant's), revocable. */
    grants: { list: grants.list, revoke: grants.revoke },
    interactions: notify.interactions,
    /**
     * The OAuth legs of a consent pause: `open` when the owner starts it (its provider, scopes and
     * expiry); `hold` before the callback exchanges a code (so a refused callback changes nothing,
     * and only one completes); `release` when the exchange failed; `complete` once the credential
     * is stored (or the user declined at the provider, which cancels the pause).
     */
    consent: consentLegs(coordinator, runs.runs),
    startRun: runs.runs.startRun,
    /**
     * Edit-and-resend (`text`) or Regenerate: the owner's thread rewound to one of its messages —
     * those dropped are superseded, never deleted — and a new run started from there, followed on
     * `runs.events`. RUN_IN_PROGRESS while a run of the thread is queued, running or paused.
     */
    rewind: runs.runs.rewind,
    runs: runAccess(deps.db, runs.runs.steer),
    responses: responseService(deps.db, deps.serverSecret),
    webhooks: webhookService(deps.db, deps.serverSecret, deps.webhooks, notify.webhookWorker.registered),
    /** Model token budgets: the limits and usage (admins: the tenant's; members: their own), and setting them (admins). */
    budgets: { view: budgets.view, set: budgets.set },
    /** How long the tenant's data lives: the policy, what the next sweep deletes, erasing a user's conversations (admins). */
    retention,
    /** MCP servers a tenant's admins connect; their tools join model-driven agents' runs. */
    mcpServers: mcp.servers,
    /** The MCP tools the caller's tenant offers to model-driven agents (none without an MCP client). */
    connectedTools: async (identity: Identity) => (mcp.connectedTools ? mcp.connectedTools(identity.tenantId) : new Map()),
    /**
     * Joins the instances on the database — reclaiming what dead ones (or, alone, earlier processes)
     * left — and starts working on background jobs; call once at start-up, before serving.
     */
    start: life.start,
    /** Reclaims dead instances now (the heartbeat does it every interval). */
    reclaim: () => cluster.instances.reclaim(),
    /** Live events of one run, from now until its transport run ends. */
    follow: (runId: string) => log.bus.follow(runId),
    /** A run's logged events after `afterSeq`, then live ones until it ends (owner or tenant admin). */
    watchRun: log.feed.watch,
    /** Which runs the caller may list just changed (admins: the tenant's; members: their own), live. */
    watchRunList: log.listFeed.watch,
    parkedCount: () => coordinator.parkedCount,
    /** One sweep now, as the interval would: deadlines that fell due act, expired waits close. */
    sweepNow: () => coordinator.sweepExpired(),
    /** The scheduler's queue, for operators. */
    schedulerQueue: (identity: Identity) => scheduler.snapshot(identity.tenantId),
    idle: life.idle,
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
    stop: life.stop,
    /** Whether a clean stop began (readiness says no from then on). */
    stopping: life.stopping,
    /** How loaded this process is — the event loop's delay, runs executing, queued, entering — and whether it sheds new runs. */
    load: runs.runs.load,
    /** Stops background work (the expiry sweep, taking new jobs and queued runs, heartbeats). */
    close: life.close,
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
export type { AbandonedRun, IncomingMessage, LoadReading, RefusedRun, RewindRequest, Rewound, StartRunRequest, StartedRun } from "./runs";
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
export { chunkText } from "./loop";
export { findUnstorableText, isStorableText, MCP_GATES, UNSTORABLE_TEXT_MESSAGE } from "@/server/domain";
export { MAX_THREAD_TITLE } from "./access";
export { WEBHOOK_EVENTS, type WebhookEvent, type WebhookSettings, type WebhookView } from "./notify";
export { AUDIT_EXPORT_MAX_DAYS, AUDIT_EXPORT_PAGE_ROWS, AuditExportFormat, AuditExportRequest } from "./notify";
export { DECISION_LINK_PATH, type DecisionLink, type LinkDecision, type LinkState } from "./pause";
export { outboxService, secretKeeper, type SecretKeeper } from "./access";
export { guardedLookup } from "./notify";
export type { McpConnector, McpListing, McpServerAddress, McpServerView, McpToolView, OperatorMcpServer } from "./mcp";
export type { McpCallOutcome, McpCallRequest, McpElicitAnswer, McpLiveCall, McpProgress, McpToolPort, McpToolResult } from "./agent";
