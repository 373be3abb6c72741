/**
 * Announcing a step's tool calls: they are validated, recorded as one assistant message, and each
 * call that must wait for an answer before it runs gets the request the run parks on.
 */
import type { PendingCall, StoredToolCall } from "@/server/domain";
import { HarborError } from "../errors";
import type { RunEvent } from "../log";
import {
  assignCallIds,
  type AgentDefinition,
  type McpToolDefinition,
  type PauseRequest,
  type PlannedCall,
  type RunState,
  type ServerToolDefinition,
  type ToolDefinition,
  type TranscriptMessage,
} from "../agent";
import { assertOneKindOfWait, storedCall } from "./call-checks";
import { gateFor } from "./call-gates";
import type { RunLoopDeps } from "./run-loop-types";

export interface AnnouncedCalls {
  state: RunState;
  calls: PendingCall[];
  /** What the run must park on before any of the calls runs (none: they run at once). */
  requests: PauseRequest[];
}

/** Validates the planner's calls, records them as one assistant message, and gates what needs approval. */
export async function announceCalls(
  state: RunState,
  agent: AgentDefinition,
  calls: readonly PlannedCall[],
  deps: RunLoopDeps,
): Promise<AnnouncedCalls> {
  assertOneKindOfWait(agent, calls);
  const pending: PendingCall[] = [];
  const requests: PauseRequest[] = [];
  const stored: StoredToolCall[] = [];
  const ids = assignCallIds(
    state.transcript,
    calls.map((c) => c.id),
    deps.newId,
  );
  for (const [i, call] of calls.entries()) {
    const definition = agent.tools.get(call.name);
    if (!definition) throw new HarborError("TOOL_FAILED", `The planner called an unknown tool "${call.name}".`);
    const parsed = definition.input.safeParse(call.args);
    if (!parsed.success) throw new HarborError("TOOL_FAILED", `The planner called ${call.name} with invalid arguments.`);
    const { id: toolCallId, modelId } = ids[i]!;
    const entry: PendingCall = { toolCallId, name: call.name, args: parsed.data as Record<string, unknown> };
    stored.push(storedCall(entry, modelId));
    const request = await requestBeforeRunning(state, agent, definition, entry, deps);
    if (request) requests.push(request);
    pending.push(entry);
  }
  const message: TranscriptMessage = {
    id: deps.newId(),
    role: "assistant",
    content: "",
    toolCalls: stored,
  };
  // Gated calls are announced with the pause that follows at once, in one write.
  await deps.append(
    pending.map((c): RunEvent => ({ type: "tool.call", messageId: message.id, toolCallId: c.toolCallId, name: c.name, args: c.args })),
    { message, defer: requests.length > 0 },
  );
  return { state: { ...state, transcript: [...state.transcript, message] }, calls: pending, requests };
}

/**
 * What a call must wait for before it runs, by its tool's kind — or undefined when it runs at
 * once. Notes on `entry` the request its answer will come by.
 */
async function requestBeforeRunning(
  state: RunState,
  agent: AgentDefinition,
  definition: ToolDefinition,
  entry: PendingCall,
  deps: RunLoopDeps,
): Promise<PauseRequest | undefined> {
  const { toolCallId, name, args } = entry;
  switch (definition.kind) {
    case "client": {
      // The browser runs it: the run waits for the owner's client to deliver its output.
      const requestId = deps.newId();
      entry.browser = { requestId };
      return {
        id: requestId,
        kind: "client_tool",
        policy: "owner",
        message: `${name} runs in your browser`,
        toolCallId,
        tool: { name, args },
        answer: definition.output,
      };
    }
    case "external":
      // Durable work: the job finishes the call (and the run) by itself; nobody answers it.
      return {
        id: deps.newId(),
        kind: "external_wait",
        policy: "owner",
        message: `${name} works in the background`,
        toolCallId,
        tool: { name, args },
      };
    case "private_input": {
      const requestId = deps.newId();
      entry.privateInput = { requestId };
      return {
        id: requestId,
        kind: "private_input",
        policy: "owner",
        message: definition.describe(args),
        toolCallId,
        tool: { name, args },
        answer: definition.form,
      };
    }
    // A remote agent asks its questions (if any) while it runs.
    case "remote_agent":
      return undefined;
    // An MCP server asks its questions (if any) while its call runs: only its gate comes first.
    case "mcp":
    case undefined:
    case "server":
      return definition.approval ? gateServerCall(state, agent, definition, entry, deps) : undefined;
  }
}

/** A gated server call's gate: passed at once when a standing approval covers it, else its request. */
async function gateServerCall(
  state: RunState,
  agent: AgentDefinition,
  definition: ServerToolDefinition | McpToolDefinition,
  entry: PendingCall,
  deps: RunLoopDeps,
): Promise<PauseRequest | undefined> {
  const gate = gateFor(agent, definition, entry, deps);
  // A call a standing approval covers passes its gate at once, approved by the grant's giver.
  if (gate.request.detail?.grant) await deps.fence?.();
  const standing = gate.request.detail?.grant ? await deps.standingApproval?.(state, definition, entry) : undefined;
  if (standing) {
    // Its use is recorded when the call ends (its result or its failure): one that never acts used nothing.
    entry.gate = { ...gate.gate, decision: { approved: true, by: standing.grantedBy, status: "resolved", grantId: standing.grantId } };
    return undefined;
  }
  entry.gate = gate.gate;
  return gate.request;
}
