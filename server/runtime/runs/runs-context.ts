/** What the parts of the run service share (see runs.ts): its dependencies and its running parts. */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import type { BeginRunInput, BegunThread } from "@/server/db/queries/run-writes";
import { childOnFirstLine, type LogLines } from "@/server/log";
import type { CredentialBroker } from "../access";
import type { AgentRegistry, ToolRegistry } from "../agent";
import type { RouteDeps, RunLease } from "../cluster";
import type { EventBus, EventStore } from "../log";
import type { Coordinator } from "../pause";
import type { BudgetService, GrantService } from "../policies";
import type { Driver } from "./drive";
import type { RunsInFlight } from "./in-flight";
import type { LoadGauge, LoadLimits } from "./load";
import type { Scheduler } from "./scheduler";
import type { steeringService } from "./steer";
import type { Mailboxes } from "./steering";

export interface RunsDeps {
  db: Database;
  /** This process: the instance that executes the runs it starts or continues. */
  instanceId: string;
  agents: AgentRegistry;
  bus: EventBus;
  log: Logger;
  coordinator: Coordinator;
  store: EventStore;
  mailboxes: Mailboxes;
  scheduler: Scheduler;
  streamChunkMs: number;
  textFrameMs?: number;
  maxSteps: number;
  /** The most messages one thread holds; a new message beyond it is refused with THREAD_FULL. */
  maxThreadMessages: number;
  /** Keys the tenant's own thread ids (see threads.ts `tenantThreadId`). */
  serverSecret: string;
  /** The largest shared state a conversation may hold, in bytes of JSON; larger is INVALID_INPUT (`state`). */
  maxStateBytes: number;
  /** What one tenant may store, in bytes (as last measured); a new run past it is QUOTA_EXCEEDED. Absent: no quota. */
  maxTenantStorageBytes?: number;
  credentials?: CredentialBroker;
  /** Standing approvals a gated call may pass on. */
  grants?: GrantService;
  /** Model token budgets, checked before each model request. */
  budgets?: BudgetService;
  /** The tools of MCP servers a tenant connected, offered by agents that take them (see mcp/). */
  connectedTools?: (tenantId: string) => Promise<ToolRegistry>;
  /** This instance's fencing token: a run stops once the instance was reclaimed while it held it. */
  lease?: RunLease;
  route?: RouteDeps;
  /** Tells the other instances a run waits in the cluster's queue (absent: this process is alone). */
  signalQueued?: () => Promise<void>;
  /** Past these, new runs are refused with OVERLOADED (see load.ts); absent: never. */
  loadLimits?: LoadLimits;
  /** How long a freed slot trusts an empty look at the cluster's queue when no queued signal came (default 1 s). */
  queueRecheckMs?: number;
}

export interface RunsContext {
  deps: RunsDeps;
  driver: Driver;
  inFlight: RunsInFlight;
  /** How loaded this process is: new runs are shed past its limits. */
  load: LoadGauge;
  /** A new run's first statement: writes the thread, its messages and the run, or nothing (see start-run.ts). */
  beginRun: (input: BeginRunInput) => Promise<BegunThread | undefined>;
  /** Steering of live runs; its `interruptThread` serves double-texting (see start-run.ts). */
  steering: ReturnType<typeof steeringService>;
}

/** A run's log lines, found together by run, thread and request. */
export function runLog(deps: Pick<RunsDeps, "log">, runId: string, threadId: string, requestId?: string): LogLines {
  return childOnFirstLine(deps.log, { runId, threadId, requestId });
}
