/**
 * The cluster room: this process as one instance on the database (heartbeat, reclaim, the runs'
 * lease) and, with other instances (`signals`), the router that forwards requests to the instance
 * holding their run. It stands on the log and pause rooms; the router decides what is forwarded
 * here through the runs room, handed in as `handleRouted`.
 */
import { open, seal, sealingKey } from "@/server/crypto/sealing";
import { createRouter, instanceKeeper, type RoutingDeps, type Sealer } from "../cluster";
import type { RuntimeDeps } from "./deps";
import type { LogRoom } from "./log";
import type { PauseRoom } from "./pause";

/** Seals requests forwarded between instances with a key of their own, bound to the request's id. */
function routingSealer(serverSecret: string): Sealer {
  const key = sealingKey(serverSecret, "harbor.routing.v1");
  return { seal: (text, id) => seal(key, text, id), open: (sealed, id) => open(key, sealed, id) };
}

export function composeCluster(
  deps: RuntimeDeps,
  below: { instanceId: string; log: LogRoom; pause: PauseRoom },
  handleRouted: RoutingDeps["handle"],
) {
  const { instanceId } = below;
  const heartbeatMs = deps.instanceHeartbeatMs ?? 2_000;
  const instances = instanceKeeper({
    db: deps.db,
    log: deps.log,
    instanceId,
    coordinator: below.pause.coordinator,
    bus: below.log.bus,
    heartbeatMs,
    ttlMs: deps.instanceTtlMs ?? 10_000,
    alone: deps.alone ?? false,
  });
  const signals = deps.signals;
  const router = signals
    ? createRouter({
        db: deps.db,
        log: deps.log,
        instanceId,
        signals,
        sealer: routingSealer(deps.serverSecret),
        handle: handleRouted,
        // A target that left without taking a request is noticed within a heartbeat.
        checkMs: heartbeatMs,
        isGone: async (id) => (await instances.state(id)) === "gone",
      })
    : undefined;
  const route = router && {
    forward: router.forward,
    state: (id: string) => instances.state(id),
    reclaim: () => instances.reclaim(),
  };
  return { instances, signals, router, route };
}

export type ClusterRoom = ReturnType<typeof composeCluster>;
