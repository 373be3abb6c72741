/**
 * What the runtime is built from: the database, the agents, the logger and the settings that tune
 * it. Only `db`, `agents`, `log`, `streamChunkMs` and `serverSecret` are required.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import type { ClusterSignals } from "@/server/db/notifications";
import type { CredentialBroker } from "../access";
import type { AgentRegistry } from "../agent";
import type { WebhookSettings } from "../notify";
import type { McpConnector, McpSettings } from "../mcp";
import type { LoadLimits } from "../runs";
import type { BudgetDefaults } from "../policies";
import type { RetentionSettings } from "../retention";

export interface RuntimeDeps {
  db: Database;
  agents: AgentRegistry;
  log: Logger;
  /** Pause between streamed text chunks (ms). */
  streamChunkMs: number;
  /** A model's streamed text goes out at most this often, in ms (default 16: a 60 Hz frame). */
  textFrameMs?: number;
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
  /** Past these, this process refuses new runs with OVERLOADED (503, Retry-After); absent: it never does. */
  loadLimits?: LoadLimits;
  /** How long a freed slot trusts an empty look at the cluster's queue when no queued signal came (default 1 s). */
  queueRecheckMs?: number;
  /** Outgoing webhooks: local addresses allowed (tests), poll interval, POST timeout, retry schedule. */
  webhooks?: WebhookSettings;
  /**
   * MCP servers tenants connect: the client that reaches them, local addresses allowed (demo,
   * tests), a cap per tenant, and the operator's own servers (stdio processes).
   */
  mcp?: McpSettings & { connector: McpConnector };
  /** Model token budgets in force for tenants that set none (absent: none). */
  budgets?: BudgetDefaults;
  /** How long tenants' conversations and audit rows are kept by default, and how often the sweep runs (absent: kept forever). */
  retention?: RetentionSettings;
  /** Where users reach Harbor (`HARBOR_PUBLIC_URL`): decision links are absolute URLs under it; absent, none are minted. */
  publicUrl?: string;
}
