/**
 * Running a step's announced calls in order, once whatever they waited for was answered: refused
 * when told no, asked again when their approval no longer holds, then carried out by their tool's
 * kind. A call that must wait (for consent, an answer to its own pause, a remote agent's question)
 * parks the run with the calls after it.
 */
import { toolSpan } from "@/server/telemetry";
import type { PendingCall } from "@/server/domain";
import { HarborError } from "../errors";
import type {
  AgentDefinition,
  HandleRegistry,
  McpToolDefinition,
  Parking,
  PauseRequest,
  RemoteAgentToolDefinition,
  Resolution,
  RunState,
  ServerToolDefinition,
  ToolDefinition,
} from "../agent";
import { withDecision, gateToAskAgain } from "./call-gates";
import type { CallOutcome } from "./call-outcome";
import { recordGrantUse, recordResult, refuse, usingGrant } from "./call-results";
import { deliverPrivateInput, recordBrowserResult } from "./client-answers";
import { callMcpTool } from "./mcp-call";
import { askRemoteAgent } from "./remote-agent-call";
import type { LoopResult, RunLoopDeps } from "./run-loop-types";
import { executeServerTool } from "./server-tool";

/** What every call of one `runCalls` shares. */
interface CallsContext {
  agent: AgentDefinition;
  deps: RunLoopDeps;
  /** The answers the run resumed with, by interaction id (none when the calls run at once). */
  resolutions: ReadonlyMap<string, Resolution>;
  /** Live handles of calls that paused themselves, by tool call id. */
  held: ReadonlyMap<string, HandleRegistry> | undefined;
}

/** One call taken (its result recorded, or nothing left to do), or the run parks on `request` with the call as it now stands. */
type CallStep =
  { type: "taken"; state: RunState } | { type: "parks"; request: PauseRequest; call: PendingCall; handles: Parking["handles"] };

const taken = (state: RunState): CallStep => ({ type: "taken", state });

/** Runs pending calls in order; a call that pauses itself parks the run with the calls after it. */
export async function runCalls(
  initial: RunState,
  agent: AgentDefinition,
  deps: RunLoopDeps,
  calls: readonly PendingCall[],
  resolutions: ReadonlyMap<string, Resolution>,
  held?: ReadonlyMap<string, HandleRegistry>,
): Promise<LoopResult> {
  const context: CallsContext = { agent, deps, resolutions, held };
  let state = initial;
  // Gate decisions are copied into the calls first, so a later pause keeps them in its checkpoint.
  const pending = calls.map((call) => withDecision(call, resolutions));
  for (const [index, call] of pending.entries()) {
    // An earlier call's result is seen before the next call runs (which may take a while).
    if (index > 0) await deps.flush?.();
    const point = deps.safePoint ? await deps.safePoint(state, "tool") : undefined;
    if (point?.type === "cancel") return { type: "finished", state: { ...point.state, outcome: "cancelled" } };
    const step = await takeCall(state, call, context).catch(async (error: unknown) => {
      // A call the run's cancel aborted in flight (an MCP call is told so): the run ends cancelled, not failed.
      const stop = deps.signal?.aborted && deps.safePoint ? await deps.safePoint(state, "tool") : undefined;
      if (stop?.type === "cancel") return { type: "cancelled" as const, state: stop.state };
      throw error;
    });
    if (step.type === "cancelled") return { type: "finished", state: { ...step.state, outcome: "cancelled" } };
    if (step.type === "parks") {
      return {
        type: "paused",
        state,
        parking: { requests: [step.request], calls: [step.call, ...pending.slice(index + 1)], handles: step.handles },
      };
    }
    state = step.state;
  }
  return { type: "finished", state };
}

/** Settles what stands before a call (its gate, its answers), then carries it out. */
async function takeCall(state: RunState, call: PendingCall, context: CallsContext): Promise<CallStep> {
  const { agent, deps, resolutions } = context;
  const decision = call.gate?.decision;
  if (call.gate && !decision) throw new HarborError("INTERNAL", `The gate of tool call ${call.toolCallId} has no decision.`);
  if (decision && !decision.approved) {
    return taken(await refuse(state, call, decision.status === "cancelled" ? "cancelled" : "rejected", decision.reason, deps));
  }
  const again = await gateToAskAgain(agent, call, resolutions, deps);
  if (again) return { type: "parks", request: again.request, call: { ...call, gate: again.gate }, handles: new Map() };
  if (call.browser) return taken(await recordBrowserResult(state, call, call.browser.requestId, resolutions, deps));
  const answer = call.paused ? resolutions.get(call.paused.on) : undefined;
  if (answer && answer.status !== "resolved") {
    // The tool asked and was told no: it does not run again, exactly like a rejected gate — and
    // what it held open for the answer (an MCP server's session) is let go.
    context.held?.get(call.toolCallId)?.dispose();
    const reason = typeof answer.payload?.reason === "string" ? answer.payload.reason : undefined;
    return taken(await refuse(state, call, answer.status, reason, deps));
  }
  const definition = agent.tools.get(call.name);
  if (!definition) throw new HarborError("TOOL_FAILED", `The tool "${call.name}" is no longer available.`);
  return carryOut(state, definition, call, answer, context);
}

/** Carries out a call its tool's way; `answer` is what the call's own earlier pause was told. */
async function carryOut(
  state: RunState,
  definition: ToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
  context: CallsContext,
): Promise<CallStep> {
  const { deps, resolutions } = context;
  switch (definition.kind) {
    case "external":
      // Background work its job finished: the result is in the conversation already.
      if (state.transcript.some((m) => m.role === "tool" && m.toolCallId === call.toolCallId)) return taken(state);
      throw cannotRunInLoop(call);
    // The browser runs it: its delivered output was taken above, with the call's browser request.
    case "client":
      throw cannotRunInLoop(call);
    case "private_input":
      if (!call.privateInput) throw new HarborError("INTERNAL", `Private input call ${call.toolCallId} has no request.`);
      return taken(await deliverPrivateInput(state, definition, call, call.privateInput.requestId, resolutions, deps));
    case "remote_agent":
      return actOutsideDatabase(state, definition, call, deps, () => askRemoteAgent(definition, call, answer, deps));
    case "mcp":
      return actOutsideDatabase(state, definition, call, deps, () => callMcpTool(state, definition, call, answer, context.held, deps));
    case undefined:
    case "server":
      return actOutsideDatabase(state, definition, call, deps, () =>
        executeServerTool(state, definition, call, answer, context.held, deps),
      );
  }
}

function cannotRunInLoop(call: PendingCall): HarborError {
  return new HarborError("INTERNAL", `Tool call ${call.toolCallId} of ${call.name} cannot run in the loop.`);
}

/**
 * Runs a call that acts outside the database (a server tool, a remote agent) and records its
 * output, or parks the run when the call must wait, keeping its state and live handles.
 */
async function actOutsideDatabase(
  state: RunState,
  definition: ServerToolDefinition | RemoteAgentToolDefinition | McpToolDefinition,
  call: PendingCall,
  deps: RunLoopDeps,
  act: () => Promise<CallOutcome>,
): Promise<CallStep> {
  // Past here the call acts outside the database: only while this process still holds the run.
  await deps.fence?.();
  const ran = await toolSpan({ name: call.name, callId: call.toolCallId, type: definition.kind ?? "server" }, () =>
    usingGrant(call, state, deps, act),
  );
  if (ran.type === "paused") {
    return {
      type: "parks",
      request: ran.request,
      call: { ...call, paused: { on: ran.request.id, state: ran.toolState, handleKeys: ran.handles.keys() } },
      handles: ran.handles.size > 0 ? new Map([[call.toolCallId, ran.handles]]) : new Map(),
    };
  }
  const checked = definition.output.safeParse(ran.output);
  if (!checked.success) {
    await recordGrantUse(call, state, deps);
    throw new HarborError("TOOL_FAILED", `The tool ${call.name} answered outside its output schema.`);
  }
  return taken(await recordResult(state, call, checked.data, deps, ran.outbox));
}
