export { instanceKeeper, LeaseLost, type RunLease } from "./instances";
export { createRouter, NotForwarded, type RouteDeps, routedIdentity, type RoutedRequest, type RoutingDeps, type Sealer } from "./routing";
export { bridgeCluster } from "./cluster-bridge";
