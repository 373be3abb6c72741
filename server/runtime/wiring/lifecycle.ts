/**
 * The runtime's life: the expiry sweep and the storage measure it keeps running, starting to
 * serve, waiting for quiet, and the two ways to stop (see `start`, `stop` and `close` in index.ts).
 */
import { signalQueued } from "@/server/db/notifications";
import { measureTenantStorage } from "@/server/db/queries/storage";
import type { RuntimeDeps } from "./deps";
import type { ClusterRoom } from "./cluster";
import type { NotifyRoom } from "./notify";
import type { PauseRoom } from "./pause";
import type { RetentionRoom } from "./retention";
import type { RunsRoom } from "./runs";

/** How long a stopping instance waits at least for its runs to reach a step and be handed back. */
const MIN_HAND_BACK_MS = 1_000;

/** Waits for `work`, at most `ms`. */
function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
}

interface Life {
  deps: RuntimeDeps;
  instanceId: string;
  pause: PauseRoom;
  cluster: ClusterRoom;
  runs: RunsRoom;
  notify: NotifyRoom;
  sweep: NodeJS.Timeout;
  storageMeasureMs: number;
  measuring: NodeJS.Timeout | undefined;
  retention: RetentionRoom;
  /** Looks whether the retention sweep is due (it runs once per interval across the cluster). */
  retaining: NodeJS.Timeout | undefined;
  /** A clean stop began: this instance hands its work over and should be sent nothing new. */
  stopping: boolean;
}

/** Runs the expiry sweep every `sweepIntervalMs` from now on, as long as the process lives. */
function startSweep(deps: RuntimeDeps, pause: PauseRoom): NodeJS.Timeout {
  const sweep = setInterval(() => {
    pause.coordinator.sweepExpired().catch((error: unknown) => deps.log.error({ err: error }, "expiry sweep failed"));
  }, deps.sweepIntervalMs ?? 5_000);
  sweep.unref();
  return sweep;
}

// The storage quota reads the last measure: taken at start, then every storageMeasureMs (shared
// between instances: a measure younger than half the interval is not taken again).
function measureStorage({ deps, storageMeasureMs }: Life): Promise<unknown> {
  return deps.maxTenantStorageBytes
    ? measureTenantStorage(deps.db, storageMeasureMs / 2).catch((error: unknown) =>
        deps.log.error({ err: error }, "could not measure the tenants' storage"),
      )
    : Promise.resolve();
}

async function start(life: Life): Promise<void> {
  const { runs, jobs } = life.runs;
  await life.cluster.instances.start();
  // Not awaited: a large database's measure must not hold up serving (the quota acts once it is taken).
  void measureStorage(life);
  life.measuring = setInterval(() => void measureStorage(life), life.storageMeasureMs);
  life.measuring.unref();
  jobs.start();
  life.notify.webhookWorker.start();
  startRetention(life);
  // Runs may wait in the cluster's queue with nobody told since (a stopped instance handed them over).
  if (life.cluster.signals) void runs.takeFromQueue(true);
}

async function idle(life: Life): Promise<void> {
  await life.runs.runs.idle();
  await life.runs.jobs.idle();
  await life.notify.webhookWorker.idle();
}

/** Every so often, sweeps if the sweep is due and no other instance took it. */
function startRetention(life: Life): void {
  const sweep = () =>
    void life.retention.sweep().catch((error: unknown) => life.deps.log.error({ err: error }, "the retention sweep failed"));
  const everyMs = life.deps.retention?.everyMs ?? 3_600_000;
  life.retaining = setInterval(sweep, Math.min(everyMs, 60_000));
  life.retaining.unref();
  sweep();
}

/** The steps of a clean stop, in order (see `stop` in index.ts). */
async function stop(life: Life, graceMs: number): Promise<void> {
  life.stopping = true;
  const { runs, jobs } = life.runs;
  const { instances, signals, router } = life.cluster;
  runs.stopTaking();
  const handed = await instances.handOff({ toCluster: signals !== undefined });
  if (signals) {
    runs.handOffWaiting();
    if (handed > 0) await signalQueued(life.deps.db, life.instanceId);
  }
  clearInterval(life.sweep);
  clearInterval(life.measuring);
  clearInterval(life.retaining);
  void jobs.stop();
  void life.notify.webhookWorker.stop();
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
}

function close(life: Life): void {
  life.runs.runs.stopTaking();
  clearInterval(life.sweep);
  clearInterval(life.measuring);
  clearInterval(life.retaining);
  void life.runs.jobs.stop();
  void life.notify.webhookWorker.stop();
  void life.cluster.instances.stop();
}

export function composeLifecycle(
  deps: RuntimeDeps,
  rooms: { instanceId: string; pause: PauseRoom; cluster: ClusterRoom; runs: RunsRoom; notify: NotifyRoom; retention: RetentionRoom },
) {
  const life: Life = {
    ...rooms,
    deps,
    sweep: startSweep(deps, rooms.pause),
    storageMeasureMs: deps.storageMeasureMs ?? 300_000,
    measuring: undefined,
    retaining: undefined,
    stopping: false,
  };
  return {
    start: () => start(life),
    idle: () => idle(life),
    stop: (graceMs: number) => stop(life, graceMs),
    close: () => close(life),
    stopping: () => life.stopping,
  };
}
