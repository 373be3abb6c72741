/**
 * The runtime's public face. Everything outside `server/runtime` imports from here.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { accountService } from "./api-tokens";
import { EventBus } from "./event-bus";
import type { AgentRegistry } from "./planner";
import { runService } from "./runs";
import { threadService } from "./threads";

export interface RuntimeDeps {
  db: Database;
  agents: AgentRegistry;
  log: Logger;
  /** Pause between streamed text chunks (ms). */
  streamChunkMs: number;
  /** Planner steps allowed per run (default 100). */
  maxSteps?: number;
}

export function createRuntime(deps: RuntimeDeps) {
  const bus = new EventBus();
  const runs = runService({ ...deps, bus, maxSteps: deps.maxSteps ?? 100 });
  return {
    accounts: accountService(deps.db),
    threads: threadService(deps.db),
    startRun: runs.startRun,
    idle: runs.idle,
  };
}

export type Runtime = ReturnType<typeof createRuntime>;

export { HarborError, NotFoundError, ForbiddenError, InvalidInputError, asHarborError } from "./errors";
export type { ErrorCode } from "./errors";
export type { Identity } from "./identity";
export { hasRole, rolesOf } from "./identity";
export type { LoggedEvent, RunEvent } from "./events";
export type { AgentDefinition, AgentRegistry, Planner, PlannerDecision } from "./planner";
export type { RunState, TranscriptMessage } from "./state";
export type { IncomingMessage, StartRunRequest, StartedRun } from "./runs";
export { hashToken, TOKEN_PREFIX } from "./api-tokens";
export { chunkText } from "./run-loop";
export { findUnstorableText, isStorableText, UNSTORABLE_TEXT_MESSAGE } from "./text";
