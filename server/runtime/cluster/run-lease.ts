/** The fencing of runs: a run acts outside the database only while its instance still holds it. */
import { HarborError } from "../errors";
import { beatNow } from "./heartbeat";
import type { Keeper } from "./keeper-state";

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

export function runLease(keeper: Keeper): RunLease {
  const { deps, state } = keeper;
  return {
    generation: () => state.generation,
    async check(held) {
      // Alone on its database nobody else can reclaim this instance; never started, it holds no lease.
      if (deps.alone || state.aliveAt === undefined) return;
      // Within its TTL (less a beat's margin) since it was last found alive, nobody reclaimed it:
      // no statement. Older than that (the process stalled), a heartbeat first tells.
      const stale = () => performance.now() - (state.aliveAt ?? 0) >= deps.ttlMs - deps.heartbeatMs;
      // Twice at most: a beat already in flight may have been sent before the stall.
      for (let beats = 0; beats < 2 && stale(); beats++) await beatNow(keeper);
      if (state.generation !== held) throw new LeaseLost();
      // The heartbeat failed (the database is unreachable): nobody can say the run is still ours.
      // It fails here, loudly, rather than act; the others reclaim it if this instance is gone.
      if (performance.now() - (state.aliveAt ?? 0) >= deps.ttlMs) {
        throw new HarborError("INSTANCE_LOST", "This instance could not confirm it still holds the run; send your message again.");
      }
    },
  };
}
