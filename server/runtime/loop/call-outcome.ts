/**
 * What a call that acts outside the database comes to: its output (and outbox rows), or a pause
 * that keeps the tool's state and live handles. Server tools and remote agents both answer in this
 * one shape, so run-calls records or parks either the same way.
 */
import type { PendingCall } from "@/server/domain";
import type { OutboxInsert } from "@/server/db/queries/run-writes";
import { HandleRegistry, type PauseRequest } from "../agent";

/** A tool call either produced its output or must wait on the coordinator for `request`. */
export type CallOutcome =
  | { type: "done"; output: unknown; outbox?: OutboxInsert[] }
  | { type: "paused"; request: PauseRequest; toolState: Record<string, unknown>; handles: HandleRegistry };

/** The call parks on `request`, keeping the tool's state and handles for when it goes on. */
export function pauseFor(
  call: PendingCall,
  request: Omit<PauseRequest, "toolCallId" | "tool">,
  toolState: Record<string, unknown> = {},
  handles = new HandleRegistry(),
): CallOutcome {
  return {
    type: "paused",
    request: { ...request, toolCallId: call.toolCallId, tool: { name: call.name, args: call.args } },
    toolState,
    handles,
  };
}
