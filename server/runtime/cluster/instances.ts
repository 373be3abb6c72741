/**
 * This process as one instance among several on one database: it registers, beats every
 * `heartbeatMs`, and reclaims what dead instances held — one survivor per dead instance. Starting
 * never touches a live instance's work: only instances silent for `ttlMs` (or, on the embedded
 * database, which one process holds at a time, every earlier one) are dead.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import {
  beat,
  claimDeadInstances,
  failRunsOf,
  handOffInstance,
  instanceState,
  pruneInstances,
  reclaimedInstances,
  registerInstance,
  unregisterInstance,
  type InstanceState,
} from "@/server/db/queries/instances";
import { releaseLeases } from "@/server/db/queries/jobs";
import type { Coordinator } from "../pause";
import { HarborError } from "../errors";
import type { EventBus } from "../log";

export interface InstancesDeps {
  db: Database;
  log: Logger;
  instanceId: string;
  coordinator: Coordinator;
  bus: EventBus;
  heartbeatMs: number;
  ttlMs: number;
  /** One process per database (the embedded one): every other instance is dead once this one starts. */
  alone: boolean;
}

/** Every this many heartbeats, what reclaimed instances still hold is looked for (see `reclaim`). */
const SWEEP_RECLAIMED_EVERY = 15;
/** Reclaimed instances and unanswered forwarded requests are forgotten after a day. */
const PRUNE_AFTER_MS = 24 * 3600_000;

export const INSTANCE_LOST_MESSAGE = "The Harbor instance running this stopped before the run ended; send your message again.";

/**
 * This instance may no longer act for a run it started: it was reclaimed by another (silent past
 * its TTL: a stall, a SIGSTOP) and what it held was ended there. Nothing more of the run is done
 * or written here.
 */
export class LeaseLost extends Error {
  constructor() {
    super("this instance was reclaimed by another while it held the run");
    this.name = "LeaseLost";
  }
}

/**
 * The fencing token of the runs an instance executes: its generation, which changes when the
 * instance learns it was reclaimed. A run takes the generation as it starts and checks it before
 * anything acts outside the database (a tool runs, a standing approval is used).
 */
export interface RunLease {
  generation(): number;
  /** Throws LeaseLost when the instance was reclaimed since `generation`, or may have been. */
  check(generation: number): Promise<void>;
}

export function instanceKeeper(deps: InstancesDeps) {
  const me = deps.instanceId;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;

  let ticks = 0;
  /**
   * When the last heartbeat that found this instance alive was sent (registering counts), on a
   * monotonic clock: the database saw it alive no earlier than that.
   */
  let aliveAt: number | undefined;
  /** Changes each time this instance learns it was reclaimed: runs started before are not its own any more. */
  let generation = 0;

  /**
   * Claims dead instances and ends what they held: process-held waits `lost`, executing runs
   * `INSTANCE_LOST`. Works from every reclaimed instance, not only those won now, so a reclaim cut
   * short (a crash between its statements) is finished by the next one.
   */
  async function reclaim(options: { startup?: boolean } = {}): Promise<string[]> {
    const won = await claimDeadInstances(deps.db, me, deps.ttlMs, options.startup === true && deps.alone);
    // Now and then even when nothing new died: what an interrupted reclaim left is finished too.
    if (won.length === 0 && !options.startup && ticks++ % SWEEP_RECLAIMED_EVERY !== 0) return won;
    const dead = await reclaimedInstances(deps.db);
    const lost = await deps.coordinator.closeWaitsOf(dead);
    const failed = await failRunsOf(deps.db, dead, { code: "INSTANCE_LOST", message: INSTANCE_LOST_MESSAGE }, options.startup === true);
    const at = Date.now();
    for (const f of failed) deps.bus.publish({ runId: f.runId, seq: f.seq, at, event: f.event });
    if (won.length > 0 || lost > 0 || failed.length > 0) {
      deps.log.warn({ instances: won, lostWaits: lost, failedRuns: failed.length }, "reclaimed what dead instances held");
    }
    if (options.startup) await pruneInstances(deps.db, PRUNE_AFTER_MS);
    return won;
  }

  async function tick(): Promise<void> {
    const sentAt = performance.now();
    const { alive } = await beat(deps.db, me);
    if (!alive) {
      // Silent too long (a stall): the others reclaimed this instance's work. Carry on as a new member.
      generation += 1;
      deps.log.error({ instance: me }, "this instance was reclaimed by another after missing its heartbeats; registering again");
      await registerInstance(deps.db, me);
    }
    aliveAt = sentAt;
    await reclaim();
  }

  /** A heartbeat now (or the one in flight). */
  const beatNow = () =>
    (ticking ??= tick()
      .catch((error: unknown) => deps.log.error({ err: error }, "heartbeat failed"))
      .finally(() => (ticking = undefined)));

  const lease: RunLease = {
    generation: () => generation,
    async check(held) {
      // Alone on its database nobody else can reclaim this instance; never started, it holds no lease.
      if (deps.alone || aliveAt === undefined) return;
      // Within its TTL (less a beat's margin) since it was last found alive, nobody reclaimed it:
      // no statement. Older than that (the process stalled), a heartbeat first tells.
      const stale = () => performance.now() - (aliveAt ?? 0) >= deps.ttlMs - deps.heartbeatMs;
      // Twice at most: a beat already in flight may have been sent before the stall.
      for (let beats = 0; beats < 2 && stale(); beats++) await beatNow();
      if (generation !== held) throw new LeaseLost();
      // The heartbeat failed (the database is unreachable): nobody can say the run is still ours.
      // It fails here, loudly, rather than act; the others reclaim it if this instance is gone.
      if (performance.now() - (aliveAt ?? 0) >= deps.ttlMs) {
        throw new HarborError("INSTANCE_LOST", "This instance could not confirm it still holds the run; send your message again.");
      }
    },
  };

  return {
    /** Registers and reclaims what dead instances (or, alone, earlier processes) left; call once before serving. */
    async start(): Promise<void> {
      const sentAt = performance.now();
      await registerInstance(deps.db, me);
      aliveAt = sentAt;
      // Twice: instances that never registered (rows written before instances existed) are found by the first.
      await reclaim({ startup: true });
      await reclaim({ startup: true });
      timer = setInterval(() => void beatNow(), deps.heartbeatMs);
      timer.unref();
    },
    /** What another instance is now: serving, stopping (its durable waits are anyone's), or gone. */
    state: (instanceId: string): Promise<InstanceState> =>
      instanceId === me ? Promise.resolve("serving") : instanceState(deps.db, instanceId, deps.ttlMs),
    reclaim: () => reclaim(),
    /** The fencing token runs check before they act outside the database. */
    lease,
    /** Stops beating; `leave` also removes the instance (a clean stop that left nothing behind). */
    async stop(options: { leave?: boolean } = {}): Promise<void> {
      clearInterval(timer);
      await ticking;
      if (options.leave) await unregisterInstance(deps.db, me);
    },
    /**
     * The first step of a graceful stop: the instance's row says it is stopping and, `toCluster`, its
     * queued runs go to the cluster's queue (see `handOffInstance`). Returns how many it handed over.
     */
    handOff: async (options: { toCluster: boolean }): Promise<number> => (await handOffInstance(deps.db, me, options.toCluster)).queued,
    /**
     * Releases what this instance still holds as it leaves (see `reclaim`), so nobody waits for its
     * TTL: process-held waits end `lost` (durable ones stay open for any instance), jobs it still
     * works on are let go, runs still executing (they reached no safe point in time) end
     * `INSTANCE_LOST` — and so do queued ones, unless `toCluster` (another instance can take them).
     */
    async release(options: { toCluster: boolean }): Promise<void> {
      await deps.coordinator.closeWaitsOf([me]);
      if (options.toCluster) await handOffInstance(deps.db, me, true);
      await releaseLeases(deps.db, me);
      const failed = await failRunsOf(deps.db, [me], { code: "INSTANCE_LOST", message: INSTANCE_LOST_MESSAGE });
      const at = Date.now();
      for (const f of failed) deps.bus.publish({ runId: f.runId, seq: f.seq, at, event: f.event });
    },
  };
}
