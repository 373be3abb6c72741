/**
 * The face of runtime/cluster: this instance among the others — its keeper and run leases, the
 * router to a run's owner, the bridge for events written elsewhere. See README.md.
 */
export { instanceKeeper, LeaseLost, type RunLease } from "./instances";
export { createRouter, NotForwarded, type RouteDeps, routedIdentity, type RoutedRequest, type RoutingDeps, type Sealer } from "./routing";
export { bridgeCluster } from "./cluster-bridge";
