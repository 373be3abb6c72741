/**
 * The face of runtime/loop: the run loop and what it does with a step's tool calls. See README.md.
 */
export { cancelRemoteTasks } from "./remote-tasks";
export { usageSince } from "./model-turn";
export { type LoopResult, type RunLoopDeps, type SafePoint, chunkText, runLoop } from "./run-loop";
