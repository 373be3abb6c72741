/**
 * This instance's heartbeat: each beat says it is alive and reclaims what dead instances left. A
 * beat that finds it was reclaimed (it was silent too long) bumps its generation, so runs it
 * started before stop acting (see `RunLease`).
 */
import { beat, registerInstance } from "@/server/db/queries/instances";
import type { Keeper } from "./keeper-state";
import { reclaim } from "./reclaim";

async function heartbeat(keeper: Keeper): Promise<void> {
  const { deps, state } = keeper;
  const me = deps.instanceId;
  const sentAt = performance.now();
  const { alive } = await beat(deps.db, me);
  if (!alive) {
    // Silent too long (a stall): the others reclaimed this instance's work. Carry on as a new member.
    state.generation += 1;
    deps.log.error({ instance: me }, "this instance was reclaimed by another after missing its heartbeats; registering again");
    await registerInstance(deps.db, me);
  }
  state.aliveAt = sentAt;
  await reclaim(keeper);
}

/** A heartbeat now (or the one in flight). */
export function beatNow(keeper: Keeper): Promise<void> {
  const { state } = keeper;
  return (state.ticking ??= heartbeat(keeper)
    .catch((error: unknown) => keeper.deps.log.error({ err: error }, "heartbeat failed"))
    .finally(() => (state.ticking = undefined)));
}

/** Registers and reclaims what dead instances (or, alone, earlier processes) left, then beats every `heartbeatMs`. */
export async function join(keeper: Keeper): Promise<void> {
  const { deps, state } = keeper;
  const sentAt = performance.now();
  await registerInstance(deps.db, deps.instanceId);
  state.aliveAt = sentAt;
  // Twice: instances that never registered (rows written before instances existed) are found by the first.
  await reclaim(keeper, { startup: true });
  await reclaim(keeper, { startup: true });
  state.timer = setInterval(() => void beatNow(keeper), deps.heartbeatMs);
  state.timer.unref();
}
