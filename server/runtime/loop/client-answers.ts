/**
 * Calls the owner's client answers: a browser tool's output, and a private form's value (handed to
 * its tool once and kept nowhere). Either one cancelled is a refusal, like a rejected gate.
 */
import type { PendingCall } from "@/server/domain";
import { HarborError } from "../errors";
import type { PrivateInputToolDefinition, Resolution, RunState } from "../agent";
import { recordResult, refuse } from "./call-results";
import type { RunLoopDeps } from "./run-loop-types";

/** A browser tool's delivered output (validated by the coordinator) becomes its result; a cancel, a refusal. */
export async function recordBrowserResult(
  state: RunState,
  call: PendingCall,
  requestId: string,
  resolutions: ReadonlyMap<string, Resolution>,
  deps: RunLoopDeps,
): Promise<RunState> {
  const delivered = resolutions.get(requestId);
  if (!delivered) throw new HarborError("INTERNAL", `Browser tool call ${call.toolCallId} resumed without its result.`);
  if (delivered.status !== "resolved") return refuse(state, call, "cancelled", "cancelled", deps);
  return recordResult(state, call, delivered.payload?.output, deps);
}

/**
 * Hands a private value to its tool's trusted `deliver`, once; the call's result is the tool's
 * declared response, which never sees the value. A cancel is a refusal, like a rejected gate.
 */
export async function deliverPrivateInput(
  state: RunState,
  definition: PrivateInputToolDefinition,
  call: PendingCall,
  requestId: string,
  resolutions: ReadonlyMap<string, Resolution>,
  deps: RunLoopDeps,
): Promise<RunState> {
  const answer = resolutions.get(requestId);
  if (!answer) throw new HarborError("INTERNAL", `Private input call ${call.toolCallId} resumed without its value.`);
  if (answer.status !== "resolved") return refuse(state, call, "cancelled", "cancelled", deps);
  try {
    await definition.deliver(answer.payload?.value, {
      runId: state.runId,
      threadId: state.threadId,
      tenantId: state.tenantId,
      userId: state.ownerId,
      toolCallId: call.toolCallId,
      keepSecret: async (provider, value) => {
        if (!deps.keepSecret) throw new HarborError("INTERNAL", "This server keeps no secrets for tools.");
        await deps.keepSecret({ tenantId: state.tenantId, userId: state.ownerId }, provider, value);
      },
    });
  } catch {
    // The handler's own error may quote the value it was given: neither its text nor its cause goes
    // anywhere. The run fails with a fixed message.
    throw new HarborError("TOOL_FAILED", `The tool ${call.name} could not take the private value.`);
  }
  const response = definition.output.safeParse(definition.respond(call.args));
  if (!response.success) throw new HarborError("TOOL_FAILED", `The tool ${call.name} declared a response outside its output schema.`);
  return recordResult(state, call, response.data, deps);
}
