/**
 * Checking a step's tool calls before any runs: each names a known tool and matches its input
 * schema, and the step waits for one kind of answer at most. A model's calls that fail are refused
 * (answered with the problem so it can correct itself); a scripted planner's fail the run.
 */
import type { PendingCall, StoredToolCall } from "@/server/domain";
import { HarborError } from "../errors";
import type { RunEvent } from "../log";
import { assignCallIds, type AgentDefinition, type RunState, type ToolDefinition, type TranscriptMessage } from "../agent";
import { recordResult } from "./call-results";
import type { RunLoopDeps } from "./run-loop-types";

/**
 * Why a model's tool calls cannot run as asked — an unknown tool, arguments outside the tool's
 * schema, calls that cannot wait together — or undefined when they can.
 */
export function callsProblem(agent: AgentDefinition, calls: readonly { name: string; args: unknown }[]): string | undefined {
  for (const call of calls) {
    const definition = agent.tools.get(call.name);
    if (!definition) return `There is no tool named "${call.name.slice(0, 64)}".`;
    const parsed = definition.input.safeParse(call.args);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`);
      return `The arguments of ${call.name} do not match its schema — ${issues.join("; ")}.`;
    }
  }
  return waitConflict(agent, calls);
}

/**
 * A model step whose calls were refused: the calls are recorded, each answered with the problem
 * (so the model can correct itself), and none runs.
 */
export async function answerRefusedCalls(
  state: RunState,
  calls: readonly { id?: string; name: string; args: unknown }[],
  problem: string,
  deps: RunLoopDeps,
): Promise<RunState> {
  const ids = assignCallIds(
    state.transcript,
    calls.map((c) => c.id),
    deps.newId,
  );
  const refused = calls.map((c, i): PendingCall => ({ toolCallId: ids[i]!.id, name: c.name.slice(0, 64), args: refusedArgs(c.args) }));
  const message: TranscriptMessage = {
    id: deps.newId(),
    role: "assistant",
    content: "",
    toolCalls: refused.map((c, i) => storedCall(c, ids[i]!.modelId)),
  };
  await deps.append(
    refused.map((c): RunEvent => ({ type: "tool.call", messageId: message.id, toolCallId: c.toolCallId, name: c.name, args: c.args })),
    { message },
  );
  let next: RunState = { ...state, transcript: [...state.transcript, message], refusedSteps: (state.refusedSteps ?? 0) + 1 };
  for (const call of refused) next = await recordResult(next, call, { error: problem, ran: false }, deps);
  return next;
}

/** A call as its assistant message stores it: the model's own id kept when the thread renamed it. */
export const storedCall = (c: PendingCall, modelId: string | undefined): StoredToolCall => ({
  id: c.toolCallId,
  name: c.name,
  args: c.args,
  ...(modelId ? { modelId } : {}),
});

const asArgs = (args: unknown): Record<string, unknown> =>
  typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : { value: args };

/** The most characters of a refused call's arguments that are stored and echoed as the model sent them. */
const REFUSED_ARGS_KEPT = 4_096;

/**
 * A refused call's arguments as the thread keeps them (stored, echoed, sent back to the model):
 * as sent when small; otherwise only their size. They failed the tool's schema already, and a
 * model can send megabytes where a tool takes a line.
 */
function refusedArgs(args: unknown): Record<string, unknown> {
  const size = JSON.stringify(args ?? null).length;
  return size <= REFUSED_ARGS_KEPT ? asArgs(args) : { omitted: `${size} characters of arguments, more than the tool accepts` };
}

/**
 * One step waits for one kind of answer: approvals together, or browser tools together; a private
 * form or background work is the step's only call. Mixed, a client could never answer the step at
 * once (a private answer travels without a transcript; background work is answered by nobody).
 */
export function assertOneKindOfWait(agent: AgentDefinition, calls: readonly { name: string }[]): void {
  const conflict = waitConflict(agent, calls);
  if (conflict) throw new HarborError("TOOL_FAILED", conflict);
}

function waitConflict(agent: AgentDefinition, calls: readonly { name: string }[]): string | undefined {
  const waits = calls.map((c) => stepWaitOf(agent.tools.get(c.name)));
  const kinds = new Set(waits.filter((wait) => wait !== "none"));
  const alone = waits.some((wait) => wait === "private_input" || wait === "external");
  if (kinds.size > 1 || (alone && calls.length > 1)) {
    return "The planner combined calls that cannot wait together; a private form or background work must be a step's only call.";
  }
  return undefined;
}

/** What a call makes its step wait for before it can run: nothing, or one kind of answer. */
type StepWait = "none" | "approval" | "client" | "private_input" | "external";

function stepWaitOf(definition: ToolDefinition | undefined): StepWait {
  // An unknown tool waits for nothing here: it is refused (or fails the run) on its own.
  if (!definition) return "none";
  switch (definition.kind) {
    case "client":
    case "private_input":
    case "external":
      return definition.kind;
    // A remote agent's questions come while it runs, one call at a time: its step does not wait first.
    case "remote_agent":
      return "none";
    // An MCP server asks its questions (if any) while its call runs: only its gate comes first.
    case "mcp":
    case undefined:
    case "server":
      return definition.approval ? "approval" : "none";
  }
}
