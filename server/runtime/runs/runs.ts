/**
 * Starting and executing runs. `startRun` does everything that can be refused with an HTTP
 * status (agent, thread ownership) before it returns; execution then happens in the background,
 * independent of the transport: a client that disconnects does not stop its run.
 *
 * The parts: starting a run (start-run.ts), answers to open interactions and the requests other
 * instances forward (resolve-answers.ts, resume-run.ts), going on with a parked run
 * (continue-run.ts), the cluster's queue (queue-taker.ts), and the driver that executes runs
 * (drive.ts). They share one `RunsContext`.
 */
import { lastSeq } from "@/server/db/queries/runs";
import { beginRuns, type BeginRunInput } from "@/server/db/queries/run-writes";
import type { InteractionKind } from "@/server/domain";
import { secretKeeper, type Identity, type VerifiedIdentity } from "../access";
import type { RoutedRequest } from "../cluster";
import { batched, RunJournal } from "../log";
import type { ResolutionInput, ResolveVia } from "../pause";
import { continueAfterWork, remoteWaitsClosed } from "./continue-run";
import { createDriver } from "./drive";
import { RunsInFlight } from "./in-flight";
import { LoadGauge } from "./load";
import { QueueTaker } from "./queue-taker";
import { handleRouted, resolveInteractions } from "./resolve-answers";
import { rewindHere, type RewindRequest } from "./rewind-run";
import type { StartRunRequest } from "./run-requests";
import type { RunsContext, RunsDeps } from "./runs-context";
import { spawnChildren, startHere } from "./start-run";
import { steeringService } from "./steer";

export type { AbandonedRun, IncomingMessage, RefusedRun, StartedRun, StartRunRequest } from "./run-requests";
export type { RewindRequest, Rewound } from "./rewind-run";
export type { RunsDeps } from "./runs-context";

export function runService(deps: RunsDeps) {
  const driver = createDriver({
    ...deps,
    keepSecret: secretKeeper(deps.db, deps.serverSecret),
    spawn: (parent, requests) => spawnChildren(ctx, parent, requests),
    // A slot freed here: another instance's queued run may take it.
    onSlotFreed: () => queue.lookSoon(),
  });
  const steering = steeringService({
    ...deps,
    isExecuting: driver.isExecuting,
    cancelWaiting: driver.cancelWaiting,
    cancelUnheld: async (runId, by) => driver.cancelUnheld(new RunJournal(runId, deps.store, deps.bus, await lastSeq(deps.db, runId)), by),
    resolveInteractions: (...args) => resolveInteractions(ctx, ...args),
  });
  const inFlight = new RunsInFlight(deps.log);
  const load = new LoadGauge(deps.loadLimits ?? { maxEventLoopDelayMs: 0, maxQueuedRuns: 0 }, () => ({
    ...deps.scheduler.counts(),
    enteringRuns: inFlight.entering,
  }));
  const ctx: RunsContext = {
    deps,
    driver,
    inFlight,
    load,
    // Concurrent new runs share their first statement (see group-commit.ts); two on one thread never
    // share one, so each is admitted as if alone.
    beginRun: batched((inputs: readonly BeginRunInput[]) => beginRuns(deps.db, inputs), {
      keys: (input) => [`thread:${input.thread.id}`],
    }),
    steering,
  };
  const queue = new QueueTaker(ctx);

  return {
    startRun: (identity: Identity, request: StartRunRequest) => ctx.inFlight.admit(() => startHere(ctx, identity, request)),
    steer: steering.steer,
    /**
     * Edit-and-resend or Regenerate (see rewind-run.ts): the owner's thread rewound to one of its
     * messages and a new run started from there; RUN_IN_PROGRESS while anything on it is live or waiting.
     */
    rewind: (identity: VerifiedIdentity, request: RewindRequest) => ctx.inFlight.admit(() => rewindHere(ctx, identity, request)),
    /** Resolves interactions outside a transport run (tRPC, console); ready runs go on in the background. */
    resolveInteractions: (identity: Identity, entries: readonly ResolutionInput[], via: Exclude<ResolveVia, "agui">) =>
      resolveInteractions(ctx, identity, entries, via),
    /** A request another instance forwarded here: decided as if it had arrived here. */
    handleRouted: (request: RoutedRequest) => handleRouted(ctx, request),
    /** Takes runs of the cluster's queue while this instance has room (`signalled`: a queued signal came). */
    takeFromQueue: (signalled?: boolean) => queue.take(signalled),
    stopTaking: () => queue.stop(),
    /** A graceful stop, first step: runs waiting for their turn here go to the cluster's queue (see drive.ts). */
    handOffWaiting: driver.handOffWaiting,
    /** A graceful stop, second step: runs executing here are handed back at their next step. */
    handBackExecuting: driver.handBackExecuting,
    remoteWaitsClosed: (closed: readonly { runId: string; kind: InteractionKind }[]) => remoteWaitsClosed(ctx, closed),
    continueAfterWork: (runId: string) => continueAfterWork(ctx, runId),
    /**
     * A graceful stop, last step: nothing more starts or continues here (`INSTANCE_STOPPING`); what
     * already did is waited for by `idle`.
     */
    close: () => ctx.inFlight.close(),
    /** How loaded this process is, and whether it sheds new runs. */
    load: () => load.read(),
    /**
     * Resolves once every run executing in this process has finished, any look at the cluster's
     * queue, and any request on its way to start or continue one (tests, shutdown).
     */
    idle: () => ctx.inFlight.idle(() => queue.pending),
  };
}
