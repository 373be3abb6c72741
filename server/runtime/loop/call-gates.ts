/**
 * Approval gates in front of tool calls: the request a gate makes, the decision copied into its
 * call, and a gate asked again when what was approved no longer holds.
 */
import type { PendingCall } from "@/server/domain";
import { bindingOf, stillBinds, type AgentDefinition, type PauseRequest, type Resolution, type ToolDefinition } from "../agent";
import { grantOffer } from "../policies";
import { HarborError } from "../errors";
import type { RunLoopDeps } from "./run-loop-types";

export interface Gate {
  gate: NonNullable<PendingCall["gate"]>;
  request: PauseRequest;
}

/** The approval gate in front of a call: its request, bound to the call's arguments and versions. */
export function gateFor(
  agent: AgentDefinition,
  definition: ToolDefinition,
  call: Pick<PendingCall, "toolCallId" | "name" | "args">,
  deps: Pick<RunLoopDeps, "newId">,
  note?: string,
): Gate {
  const approval = "approval" in definition ? definition.approval : undefined;
  if (!approval) throw new HarborError("INTERNAL", `The tool ${call.name} has no gate.`);
  const needed = typeof approval.quorum === "function" ? approval.quorum(call.args) : (approval.quorum ?? 1);
  if (!Number.isInteger(needed) || needed < 1 || (needed > 1 && approval.policy !== "approvers")) {
    throw new HarborError(
      "TOOL_FAILED",
      `The tool ${call.name} asks for a quorum of ${needed}: only approvers' gates take one, of at least 1.`,
    );
  }
  const id = deps.newId();
  const described = approval.describe(call.args);
  const offer = grantOffer(agent, definition, call.args, needed);
  return {
    gate: { id, binding: bindingOf(agent, definition, call.args) },
    request: {
      id,
      kind: "approval",
      policy: approval.policy,
      message: note ? `${described} (${note})` : described,
      toolCallId: call.toolCallId,
      tool: { name: call.name, args: call.args },
      ...(approval.ttlMs ? { ttlMs: approval.ttlMs } : {}),
      ...(needed > 1 ? { quorum: needed } : {}),
      ...(approval.deadline ? { deadline: approval.deadline } : {}),
      ...(offer ? { detail: { grant: offer } } : {}),
    },
  };
}

/** The call with its gate's decision, once one of `resolutions` made it. */
export function withDecision(call: PendingCall, resolutions: ReadonlyMap<string, Resolution>): PendingCall {
  if (!call.gate || call.gate.decision) return call;
  const resolution = resolutions.get(call.gate.id);
  if (!resolution) return call;
  const approved = resolution.status === "resolved" && resolution.payload?.approved === true;
  const reason = typeof resolution.payload?.reason === "string" ? resolution.payload.reason : undefined;
  return { ...call, gate: { ...call.gate, decision: { approved, by: resolution.actorId, reason, status: resolution.status } } };
}

/**
 * A new gate for an approved call whose approval no longer holds — what would run is not what was
 * approved, or the standing approval that let it through ended while the run was parked — or
 * undefined when the approval (if any) still holds.
 */
export async function gateToAskAgain(
  agent: AgentDefinition,
  call: PendingCall,
  resolutions: ReadonlyMap<string, Resolution>,
  deps: Pick<RunLoopDeps, "newId" | "grantIsLive">,
): Promise<Gate | undefined> {
  const gated = call.gate?.binding ? agent.tools.get(call.name) : undefined;
  if (!gated) return undefined;
  if (!stillBinds(call.gate?.binding, agent, gated, call.args)) {
    // What was approved is not what would run (the tool, the agent or the arguments changed): ask again.
    return gateFor(agent, gated, call, deps, "changed since it was approved: please decide again");
  }
  const grantId = call.gate?.decision?.grantId;
  if (grantId && resolutions.size > 0 && !(await deps.grantIsLive?.(grantId))) {
    // Let through by a standing approval, then parked with other calls: revoked or expired since, it is asked again.
    return gateFor(agent, gated, call, deps, "its standing approval ended: please decide");
  }
  return undefined;
}
