/**
 * How a tool call's end is written down: its result as a transcript message and event, a refusal,
 * and the use of the standing approval that let it through (counted with the same write).
 */
import type { PendingCall } from "@/server/domain";
import type { GrantUse, OutboxInsert } from "@/server/db/queries/run-writes";
import type { RunEvent } from "../log";
import type { RunState, TranscriptMessage } from "../agent";
import type { RunLoopDeps } from "./run-loop-types";

export async function recordResult(
  state: RunState,
  call: PendingCall,
  output: unknown,
  deps: RunLoopDeps,
  outbox?: readonly OutboxInsert[],
): Promise<RunState> {
  const message: TranscriptMessage = { id: deps.newId(), role: "tool", content: JSON.stringify(output), toolCallId: call.toolCallId };
  const use = grantUseOf(call, state);
  // The result rides with the next write: the next call's flush, the reply, the pause or the end.
  // A standing approval that let the call through is counted and audited in that same write.
  await deps.append(
    [...(use ? [use.event] : []), { type: "tool.result", messageId: message.id, toolCallId: call.toolCallId, content: message.content }],
    { message, defer: true, outbox, ...(use ? { grantUse: use.grantUse } : {}) },
  );
  return { ...state, transcript: [...state.transcript, message] };
}

/**
 * A call told no (a rejected gate, a cancelled request): it never runs, its result says so, and
 * the run ends with that outcome.
 */
export async function refuse(
  state: RunState,
  call: PendingCall,
  outcome: "rejected" | "cancelled",
  reason: string | undefined,
  deps: RunLoopDeps,
): Promise<RunState> {
  const next = await recordResult(state, call, { rejected: true, ...(reason ? { reason } : {}) }, deps);
  return { ...next, outcome };
}

/**
 * Runs a call; when a standing approval let it through and it fails, the use is still recorded (with
 * the failure's write): the tool may have acted before it failed.
 */
export async function usingGrant<T>(call: PendingCall, state: RunState, deps: RunLoopDeps, act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (error) {
    await recordGrantUse(call, state, deps);
    throw error;
  }
}

/** Records the use of the standing approval that let `call` through, if one did, with the next write. */
export async function recordGrantUse(call: PendingCall, state: RunState, deps: RunLoopDeps): Promise<void> {
  const use = grantUseOf(call, state);
  if (use) await deps.append([use.event], { defer: true, grantUse: use.grantUse });
}

/** The event and the record of a standing approval's use by a call, if one let it through. */
function grantUseOf(call: PendingCall, state: RunState): { event: RunEvent; grantUse: GrantUse } | undefined {
  const decision = call.gate?.decision;
  if (!decision?.grantId) return undefined;
  return {
    event: { type: "grant.used", grantId: decision.grantId, toolCallId: call.toolCallId, toolName: call.name, grantedBy: decision.by },
    grantUse: { grantId: decision.grantId, ownerId: state.ownerId, threadId: state.threadId, toolCallId: call.toolCallId },
  };
}
