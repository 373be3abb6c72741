/**
 * The runs room: the run service and what it schedules with — background jobs, the mailboxes
 * steering goes through, the fair scheduler, standing approvals. It stands on the log, pause and
 * cluster rooms, and takes queued runs from the cluster's queue when another instance signals.
 */
import { signalQueued } from "@/server/db/notifications";
import { budgetService, grantService, type BudgetDefaults } from "../policies";

/** Without budgets configured, none applies (a tenant's admins may still set their own). */
const NO_BUDGETS: BudgetDefaults = { tenantDaily: 0, tenantMonthly: 0, userDaily: 0, userMonthly: 0 };
import { createJobRunner, Mailboxes, runService, Scheduler } from "../runs";
import type { RuntimeDeps } from "./deps";
import type { ClusterRoom } from "./cluster";
import type { LogRoom } from "./log";
import type { McpRoom } from "./mcp";
import type { PauseRoom } from "./pause";

export function composeRuns(
  deps: RuntimeDeps,
  below: { instanceId: string; log: LogRoom; pause: PauseRoom; cluster: ClusterRoom; mcp: McpRoom },
) {
  const { instanceId } = below;
  const { bus, store } = below.log;
  const { instances, signals, route } = below.cluster;
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
  const mailboxes = new Mailboxes();
  const scheduler = new Scheduler(deps.maxActiveRuns ?? 100, deps.maxActiveRunsPerUser ?? 10);
  const grants = grantService(deps.db, deps.agents);
  const budgets = budgetService(deps.db, deps.budgets ?? NO_BUDGETS);
  const runs = runService({
    ...deps,
    grants,
    budgets,
    lease: instances.lease,
    instanceId,
    bus,
    coordinator: below.pause.coordinator,
    store,
    mailboxes,
    scheduler,
    maxSteps: deps.maxSteps ?? 20_000,
    maxThreadMessages: deps.maxThreadMessages ?? 1_000,
    maxStateBytes: deps.maxStateBytes ?? 262_144,
    maxTenantStorageBytes: deps.maxTenantStorageBytes || undefined,
    route,
    signalQueued: signals ? () => signalQueued(deps.db, instanceId) : undefined,
    connectedTools: below.mcp.connectedTools,
  });
  signals?.onQueued(() => void runs.takeFromQueue(true));
  // Queued signals sent while the listening connection was down are lost: look as if told.
  signals?.onReconnected(() => void runs.takeFromQueue(true));
  return { jobs, scheduler, grants, budgets, runs };
}

export type RunsRoom = ReturnType<typeof composeRuns>;
