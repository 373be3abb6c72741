/**
 * This process as one instance among several on one database: it registers, beats every
 * `heartbeatMs`, and reclaims what dead instances held — one survivor per dead instance. Starting
 * never touches a live instance's work: only instances silent for `ttlMs` (or, on the embedded
 * database, which one process holds at a time, every earlier one) are dead.
 */
import { handOffInstance, instanceState, unregisterInstance, type InstanceState } from "@/server/db/queries/instances";
import { join } from "./heartbeat";
import { newKeeper, type InstancesDeps } from "./keeper-state";
import { reclaim, releaseOwn } from "./reclaim";
import { runLease } from "./run-lease";

export type { InstancesDeps } from "./keeper-state";
export { INSTANCE_LOST_MESSAGE } from "./reclaim";
export { LeaseLost, type RunLease } from "./run-lease";

export function instanceKeeper(deps: InstancesDeps) {
  const keeper = newKeeper(deps);
  const me = deps.instanceId;

  return {
    /** Registers and reclaims what dead instances (or, alone, earlier processes) left; call once before serving. */
    start: (): Promise<void> => join(keeper),
    /** What another instance is now: serving, stopping (its durable waits are anyone's), or gone. */
    state: (instanceId: string): Promise<InstanceState> =>
      instanceId === me ? Promise.resolve("serving") : instanceState(deps.db, instanceId, deps.ttlMs),
    reclaim: () => reclaim(keeper),
    /** The fencing token runs check before they act outside the database. */
    lease: runLease(keeper),
    /** Stops beating; `leave` also removes the instance (a clean stop that left nothing behind). */
    async stop(options: { leave?: boolean } = {}): Promise<void> {
      clearInterval(keeper.state.timer);
      await keeper.state.ticking;
      if (options.leave) await unregisterInstance(deps.db, me);
    },
    /**
     * The first step of a graceful stop: the instance's row says it is stopping and, `toCluster`, its
     * queued runs go to the cluster's queue (see `handOffInstance`). Returns how many it handed over.
     */
    handOff: async (options: { toCluster: boolean }): Promise<number> => (await handOffInstance(deps.db, me, options.toCluster)).queued,
    /** Releases what this instance still holds as it leaves (see `releaseOwn`). */
    release: (options: { toCluster: boolean }): Promise<void> => releaseOwn(keeper, options),
  };
}
