/**
 * Owner routing: an answer or steering instruction that reaches an instance other than the one
 * holding its run is forwarded there and decided under the same rules. The request is stored sealed
 * (it may carry a private form's value) and only its id travels in `NOTIFY`; the owner answers in
 * the same row, and the sender takes the answer once. A request its target never decides — it
 * stopped serving, or left, before taking it — goes back to its sender (`NotForwarded`), which
 * decides it itself: taken or given back, never both, so it is decided once.
 */
import type { InstanceState } from "@/server/db/queries/instances";
import { routerContext, type RoutingDeps } from "./router-context";
import { closeRouter, serveOnce, serveUntaken } from "./routing-owner";
import { forward } from "./routing-sender";
import type { RoutedRequest } from "./routed-request";

export { NotForwarded, RoutedRequest, type RoutedReply, routedIdentity } from "./routed-request";
export type { RoutingDeps, Sealer } from "./router-context";

export function createRouter(deps: RoutingDeps) {
  const router = routerContext(deps);
  deps.signals.onReplied((id) => router.waiting.get(id)?.());
  deps.signals.onRouted((id) => serveOnce(router, id));
  deps.signals.onReconnected(() => serveUntaken(router));

  return {
    forward: (target: string, request: RoutedRequest) => forward(router, target, request),
    close: () => closeRouter(router),
  };
}

/** How this instance reaches the others (absent: it is alone on its database). */
export interface RouteDeps {
  /** Forwards a request to the instance holding its run; throws `NotForwarded` when that one never takes it. */
  forward(instanceId: string, request: RoutedRequest): Promise<{ runIds: string[] }>;
  /** What the instance is now: `serving`, `stopping` (its durable waits are anyone's) or `gone`. */
  state(instanceId: string): Promise<InstanceState>;
  /** Reclaims dead instances now. */
  reclaim(): Promise<unknown>;
}
