/** What the instance keeper is given, and what it changes as it runs (shared by its parts). */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import type { Coordinator } from "../pause";
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

export interface KeeperState {
  timer: NodeJS.Timeout | undefined;
  ticking: Promise<void> | undefined;
  ticks: number;
  /**
   * When the last heartbeat that found this instance alive was sent (registering counts), on a
   * monotonic clock: the database saw it alive no earlier than that.
   */
  aliveAt: number | undefined;
  /** Changes each time this instance learns it was reclaimed: runs started before are not its own any more. */
  generation: number;
}

export interface Keeper {
  deps: InstancesDeps;
  state: KeeperState;
}

/** A keeper not started yet: never found alive, generation 0. */
export function newKeeper(deps: InstancesDeps): Keeper {
  return { deps, state: { timer: undefined, ticking: undefined, ticks: 0, aliveAt: undefined, generation: 0 } };
}
