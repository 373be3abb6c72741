/** What the driver's parts share: the driver's dependencies, and what this process knows of its runs. */
import type { Database } from "@/server/db";
import type { CredentialBroker, SecretKeeper } from "../access";
import type { AgentRegistry, RunState, ToolRegistry } from "../agent";
import type { RunLease } from "../cluster";
import type { EventBus } from "../log";
import type { Coordinator } from "../pause";
import type { BudgetService, GrantService } from "../policies";
import type { RunsHere } from "./runs-here";
import type { Scheduler } from "./scheduler";
import type { Mailboxes } from "./steering";

export interface DriveDeps {
  db: Database;
  instanceId: string;
  /** Tells the other instances a run waits in the cluster's queue (absent: this process is alone). */
  signalQueued?: () => Promise<void>;
  /** A slot freed here: take the cluster's next queued run, if any. */
  onSlotFreed?: () => void;
  /** Live events of runs, to follow one another instance executes. */
  bus: EventBus;
  agents: AgentRegistry;
  coordinator: Coordinator;
  mailboxes: Mailboxes;
  scheduler: Scheduler;
  /** Starts child runs of a run (see runs.ts). */
  spawn(parent: RunState, requests: readonly string[]): Promise<string[]>;
  streamChunkMs: number;
  textFrameMs?: number;
  maxSteps: number;
  /** OAuth credentials for tools that declare `auth`. */
  credentials?: CredentialBroker;
  /** Where private forms' tools keep secrets for their owners (`PrivateInputContext.keepSecret`). */
  keepSecret?: SecretKeeper;
  /** Standing approvals a gated call may pass on. */
  grants?: GrantService;
  /** Model token budgets, checked before each model request. */
  budgets?: BudgetService;
  /** The tools of MCP servers a tenant connected, offered by agents that take them (see mcp/). */
  connectedTools?: (tenantId: string) => Promise<ToolRegistry>;
  /** This instance's fencing token (see instances.ts): absent, nothing is fenced. */
  lease?: RunLease;
}

export interface DriverContext {
  deps: DriveDeps;
  here: RunsHere;
}
