/**
 * The runtime's wiring, one room at a time, each built on the rooms below it. Only the runtime's
 * face (../index.ts) imports it; it imports the rooms only through their index.ts.
 */
export type { RuntimeDeps } from "./deps";
export { composeCluster, type ClusterRoom } from "./cluster";
export { composeLifecycle } from "./lifecycle";
export { composeLog, type LogRoom } from "./log";
export { composeNotify, type NotifyRoom } from "./notify";
export { composePause, consentLegs, DEFAULT_A2A_TTL_MS, DEFAULT_APPROVAL_TTL_MS, DEFAULT_OAUTH_TTL_MS, type PauseRoom } from "./pause";
export { composeMcp, type McpRoom } from "./mcp";
export { composeRuns, type RunsRoom } from "./runs";
export { composeRetention, type RetentionRoom } from "./retention";
