/**
 * The run loop: asks the planner for the next step, carries it out, repeats until the planner
 * finishes or the run must wait. It works only on the serializable `RunState` and reports through
 * the journal; parking itself is the coordinator's job — the loop only says what it waits for.
 */
import { createHash } from "node:crypto";
import type { PendingCall, StoredToolCall } from "@/server/domain";
import type { GrantUse, OutboxInsert } from "@/server/db/queries/run-writes";
import type { CredentialBroker } from "../access";
import { RemoteTaskState } from "./remote-tasks";
import { bindingOf, stillBinds } from "../agent";
import { grantOffer, type StandingApproval } from "../policies";
import { HarborError } from "../errors";
import type { RunEvent } from "../log";
import { streamModelTurn } from "./model-turn";
import type { AgentDefinition, PlannedCall } from "../agent";
import type { RunState, TranscriptMessage } from "../agent";
import { RemoteAuthAnswer, RemoteInputAnswer, type Parking, type PauseRequest, type ResumeInput } from "../agent";
import { assignCallIds } from "../agent";
import {
  assertPlainJson,
  CredentialRejectedSignal,
  HandleRegistry,
  PauseSignal,
  type PrivateInputToolDefinition,
  type RemoteAgentResult,
  type RemoteAgentToolDefinition,
  type RemoteOutcome,
  type Resolution,
  type ServerToolDefinition,
  type ToolContext,
  type ToolDefinition,
} from "../agent";

export interface RunLoopDeps {
  /**
   * Records events (and the transcript message they say, if any) in the run's log, then
   * publishes them, spaced by `paceMs`. `defer` lets them ride with the next write instead.
   */
  append(
    events: readonly RunEvent[],
    options?: {
      paceMs?: number;
      message?: TranscriptMessage;
      defer?: boolean;
      outbox?: readonly OutboxInsert[];
      /** A standing approval the call whose result this is passed on: counted and audited with it. */
      grantUse?: GrantUse;
    },
  ): Promise<unknown>;
  /** Stores (and publishes) what was deferred: before waiting on anything that may take a while. */
  flush?(): Promise<void>;
  /**
   * Throws when this process may no longer act for the run (another instance reclaimed it while it
   * stalled): checked before a tool acts outside the database and before a standing approval is used.
   */
  fence?(): Promise<void>;
  newId(): string;
  /** Pause between streamed chunks of text. */
  streamChunkMs: number;
  /** Upper bound on planner steps, so a planner bug cannot spin forever. */
  maxSteps: number;
  /**
   * A safe point (before each planner step and each tool): applies steering that arrived meanwhile.
   * Returns the state to go on with, or says to stop (cancelled), to park (an operator's pause), or
   * — before a step only — to hand the run back (its instance is stopping).
   * Before a tool only a cancel is honored: a pause there could lose answers held in memory, and a
   * message there would split a tool call from its result.
   */
  safePoint?(state: RunState, where: "step" | "tool"): Promise<SafePoint>;
  /** Starts child runs (one per request); returns their run ids. */
  spawn?(state: RunState, requests: readonly string[]): Promise<string[]>;
  /** OAuth credentials for tools that declare `auth`. */
  credentials?: CredentialBroker;
  /**
   * The standing approval covering a gated call, used — or undefined, and the call's gate pauses.
   * Asked only for calls whose gate could grant one (see grants.ts).
   */
  /** Whether a grant that let a call through is still live (asked when the run parked in between). */
  grantIsLive?(grantId: string): Promise<boolean>;
  standingApproval?(
    state: RunState,
    definition: ToolDefinition,
    call: { toolCallId: string; args: Record<string, unknown> },
  ): Promise<StandingApproval | undefined>;
  /** Aborts when the run is cancelled, so a model's answer in flight stops at once. */
  signal?: AbortSignal;
}

/** Model steps in a row whose tool calls may be refused (sent back as errors) before the run fails. */
export const MAX_REFUSED_STEPS = 3;

export type SafePoint =
  | { type: "continue"; state: RunState }
  | { type: "cancel"; state: RunState }
  | { type: "pause"; state: RunState; request: PauseRequest }
  /** Between two steps the state is whole: the run can go on from it on another instance. */
  | { type: "hand_back"; state: RunState };

export type LoopResult =
  | { type: "finished"; state: RunState }
  | { type: "paused"; state: RunState; parking: Parking }
  /** Stopped between two steps for another instance to go on from `state` (nothing is pending). */
  | { type: "handed_back"; state: RunState };

/**
 * Awaits a planner's decision; one that does not come at once (a model, a lookup) first lets what
 * waits to be written go out, so nobody waits on the planner to see the run's last words.
 */
async function flushUnlessImmediate<T>(decision: Promise<T> | T, deps: RunLoopDeps): Promise<T> {
  if (!deps.flush || !(decision instanceof Promise)) return decision;
  let settled = false;
  decision.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  if (!settled) await deps.flush();
  return decision;
}

/** Splits text into word-sized chunks that concatenate back to the exact text. */
export function chunkText(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text.length > 0 ? [text] : []);
}

/** Runs the planner until it finishes or the run must wait. Throws HarborError on failure. */
export async function runLoop(initial: RunState, agent: AgentDefinition, deps: RunLoopDeps, resume?: ResumeInput): Promise<LoopResult> {
  let state = initial;
  if (resume) {
    state = recordAnswers(state, resume);
    // A rejected pause of the planner's own is a constraint it cannot satisfy: the run ends there.
    if (state.outcome) return { type: "finished", state };
    const result = await runCalls(state, agent, deps, resume.calls, resume.resolutions, resume.handles);
    if (result.type === "paused") return result;
    state = result.state;
  }
  for (;;) {
    const point = deps.safePoint ? await deps.safePoint(state, "step") : undefined;
    if (point) {
      state = point.state;
      if (point.type === "cancel") return { type: "finished", state: { ...state, outcome: "cancelled" } };
      if (point.type === "pause") return { type: "paused", state, parking: { requests: [point.request], calls: [], handles: new Map() } };
      if (point.type === "hand_back") return { type: "handed_back", state };
    }
    if (state.step >= deps.maxSteps) {
      throw new HarborError("STEP_LIMIT", `The run stopped after ${deps.maxSteps} planner steps.`);
    }
    const signal = deps.signal ?? new AbortController().signal;
    const decision = await flushUnlessImmediate(agent.planner.next(state, { signal }), deps);
    state = { ...state, step: state.step + 1 };
    switch (decision.type) {
      case "finish":
        return { type: "finished", state };
      case "say":
        state = await say(state, decision.text, deps);
        if (decision.thenWaitMs) {
          await deps.flush?.();
          await new Promise((resolve) => setTimeout(resolve, decision.thenWaitMs));
        }
        break;
      case "spawn": {
        if (!deps.spawn) throw new HarborError("INTERNAL", "This runtime cannot start child runs.");
        const children = await deps.spawn(state, decision.requests);
        await deps.append([{ type: "children.started", runIds: children }]);
        state = { ...state, children: [...(state.children ?? []), ...children] };
        break;
      }
      case "request_pause": {
        const request: PauseRequest = { id: deps.newId(), kind: "approval", reason: "hitl", policy: "owner", message: decision.message };
        return { type: "paused", state, parking: { requests: [request], calls: [], handles: new Map() } };
      }
      case "stream": {
        // The model may take a while to say its first word: what waits is seen before.
        await deps.flush?.();
        const turn = await streamModelTurn(state, decision.parts, deps, signal);
        state = turn.state;
        // A model that said nothing and called nothing has nothing more to do.
        if (!turn.aborted && turn.calls.length === 0 && !turn.said) return { type: "finished", state };
        if (turn.aborted || turn.calls.length === 0) break;
        const problem = callsProblem(agent, turn.calls);
        if (problem) {
          state = await answerRefusedCalls(state, turn.calls, problem, deps);
          if ((state.refusedSteps ?? 0) >= MAX_REFUSED_STEPS) {
            throw new HarborError("TOOL_FAILED", `The model's tool calls were refused ${MAX_REFUSED_STEPS} times in a row: ${problem}`);
          }
          break;
        }
        state = { ...state, refusedSteps: 0 };
        // Checked just above: every call names a tool and matches its input schema.
        const result = await callTools(state, agent, turn.calls as PlannedCall[], deps);
        if (result.type === "paused") return result;
        state = result.state;
        break;
      }
      case "call_tools": {
        const result = await callTools(state, agent, decision.calls, deps);
        if (result.type === "paused") return result;
        state = result.state;
        break;
      }
    }
  }
}

/** Announces the calls; parks when any needs an answer first, else runs them in order. */
async function callTools(state: RunState, agent: AgentDefinition, calls: readonly PlannedCall[], deps: RunLoopDeps): Promise<LoopResult> {
  const planned = await announceCalls(state, agent, calls, deps);
  if (planned.requests.length > 0) {
    return { type: "paused", state: planned.state, parking: { requests: planned.requests, calls: planned.calls, handles: new Map() } };
  }
  return runCalls(planned.state, agent, deps, planned.calls, new Map());
}

async function say(state: RunState, text: string, deps: RunLoopDeps): Promise<RunState> {
  const message: TranscriptMessage = { id: deps.newId(), role: "assistant", content: text };
  const deltas = chunkText(text).map((delta): RunEvent => ({ type: "text.delta", messageId: message.id, delta }));
  // Whole text rides with the next write (often the run's completion, a moment later).
  await deps.append([{ type: "text.started", messageId: message.id }, ...deltas, { type: "text.ended", messageId: message.id }], {
    paceMs: deps.streamChunkMs,
    message,
    defer: true,
  });
  return { ...state, transcript: [...state.transcript, message] };
}

/** Answers to the planner's own pauses go into the state it reads; a rejection sets the outcome. */
function recordAnswers(state: RunState, resume: ResumeInput): RunState {
  const callGates = new Set(resume.calls.flatMap((c) => [c.gate?.id, c.paused?.on, c.browser?.requestId, c.privateInput?.requestId]));
  const answers = { ...state.answers };
  let outcome = state.outcome;
  for (const [id, resolution] of resume.resolutions) {
    if (callGates.has(id)) continue;
    answers[id] = { status: resolution.status, payload: resolution.payload };
    if (resolution.status !== "resolved") outcome = resolution.status;
  }
  return { ...state, answers, ...(outcome ? { outcome } : {}) };
}

/** Validates the planner's calls, records them as one assistant message, and gates what needs approval. */
async function announceCalls(
  state: RunState,
  agent: AgentDefinition,
  calls: readonly PlannedCall[],
  deps: RunLoopDeps,
): Promise<{ state: RunState; calls: PendingCall[]; requests: PauseRequest[] }> {
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
    const args = parsed.data as Record<string, unknown>;
    const { id: toolCallId, modelId } = ids[i]!;
    const entry: PendingCall = { toolCallId, name: call.name, args };
    stored.push(storedCall(entry, modelId));
    if (definition.kind === "client") {
      // The browser runs it: the run waits for the owner's client to deliver its output.
      const requestId = deps.newId();
      entry.browser = { requestId };
      requests.push({
        id: requestId,
        kind: "client_tool",
        reason: null,
        policy: "owner",
        message: `${call.name} runs in your browser`,
        toolCallId,
        tool: { name: call.name, args },
        answer: definition.output,
      });
    } else if (definition.kind === "external") {
      // Durable work: the job finishes the call (and the run) by itself; nobody answers it.
      requests.push({
        id: deps.newId(),
        kind: "external_wait",
        reason: null,
        policy: "owner",
        message: `${call.name} works in the background`,
        toolCallId,
        tool: { name: call.name, args },
      });
    } else if (definition.kind === "private_input") {
      const requestId = deps.newId();
      entry.privateInput = { requestId };
      requests.push({
        id: requestId,
        kind: "private_input",
        reason: "hitl",
        policy: "owner",
        message: definition.describe(args),
        toolCallId,
        tool: { name: call.name, args },
        answer: definition.form,
      });
    } else if (definition.kind !== "remote_agent" && definition.approval) {
      const gate = gateFor(agent, definition, entry, deps);
      // A call a standing approval covers passes its gate at once, approved by the grant's giver.
      if (gate.request.detail?.grant) await deps.fence?.();
      const standing = gate.request.detail?.grant ? await deps.standingApproval?.(state, definition, entry) : undefined;
      if (standing) {
        // Its use is recorded when the call ends (its result or its failure): one that never acts used nothing.
        entry.gate = { ...gate.gate, decision: { approved: true, by: standing.grantedBy, status: "resolved", grantId: standing.grantId } };
      } else {
        entry.gate = gate.gate;
        requests.push(gate.request);
      }
    }
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
 * Why a model's tool calls cannot run as asked — an unknown tool, arguments outside the tool's
 * schema, calls that cannot wait together — or undefined when they can.
 */
function callsProblem(agent: AgentDefinition, calls: readonly { name: string; args: unknown }[]): string | undefined {
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
async function answerRefusedCalls(
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
const storedCall = (c: PendingCall, modelId: string | undefined): StoredToolCall => ({
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
function assertOneKindOfWait(agent: AgentDefinition, calls: readonly { name: string }[]): void {
  const conflict = waitConflict(agent, calls);
  if (conflict) throw new HarborError("TOOL_FAILED", conflict);
}

function waitConflict(agent: AgentDefinition, calls: readonly { name: string }[]): string | undefined {
  const kinds = calls.map((c) => {
    const definition = agent.tools.get(c.name);
    if (definition?.kind === "client" || definition?.kind === "private_input" || definition?.kind === "external") return definition.kind;
    return definition && "approval" in definition && definition.approval ? "approval" : "server";
  });
  const waits = new Set(kinds.filter((k) => k !== "server"));
  const alone = kinds.some((k) => k === "private_input" || k === "external");
  if (waits.size > 1 || (alone && calls.length > 1)) {
    return "The planner combined calls that cannot wait together; a private form or background work must be a step's only call.";
  }
  return undefined;
}

/** The approval gate in front of a call: its request, bound to the call's arguments and versions. */
function gateFor(
  agent: AgentDefinition,
  definition: ToolDefinition,
  call: Pick<PendingCall, "toolCallId" | "name" | "args">,
  deps: Pick<RunLoopDeps, "newId">,
  note?: string,
): { gate: NonNullable<PendingCall["gate"]>; request: PauseRequest } {
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
      reason: "hitl",
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

/** Runs pending calls in order; a call that pauses itself parks the run with the calls after it. */
async function runCalls(
  initial: RunState,
  agent: AgentDefinition,
  deps: RunLoopDeps,
  calls: readonly PendingCall[],
  resolutions: ReadonlyMap<string, Resolution>,
  held?: ReadonlyMap<string, HandleRegistry>,
): Promise<LoopResult> {
  let state = initial;
  // Gate decisions are copied into the calls first, so a later pause keeps them in its checkpoint.
  const remaining = calls.map((call) => withDecision(call, resolutions));
  let first = true;
  while (remaining.length > 0) {
    // An earlier call's result is seen before the next call runs (which may take a while).
    if (!first) await deps.flush?.();
    first = false;
    const point = deps.safePoint ? await deps.safePoint(state, "tool") : undefined;
    if (point?.type === "cancel") return { type: "finished", state: { ...point.state, outcome: "cancelled" } };
    const call = remaining[0]!;
    const decision = call.gate?.decision;
    if (call.gate && !decision) throw new HarborError("INTERNAL", `The gate of tool call ${call.toolCallId} has no decision.`);
    if (decision && !decision.approved) {
      state = await refuse(state, call, decision.status === "cancelled" ? "cancelled" : "rejected", decision.reason, deps);
      remaining.shift();
      continue;
    }
    const gated = call.gate?.binding ? agent.tools.get(call.name) : undefined;
    if (gated && !stillBinds(call.gate?.binding, agent, gated, call.args)) {
      // What was approved is not what would run (the tool, the agent or the arguments changed): ask again.
      const again = gateFor(agent, gated, call, deps, "changed since it was approved: please decide again");
      return {
        type: "paused",
        state,
        parking: { requests: [again.request], calls: [{ ...call, gate: again.gate }, ...remaining.slice(1)], handles: new Map() },
      };
    }
    if (gated && decision?.grantId && resolutions.size > 0 && !(await deps.grantIsLive?.(decision.grantId))) {
      // Let through by a standing approval, then parked with other calls: revoked or expired since, it is asked again.
      const again = gateFor(agent, gated, call, deps, "its standing approval ended: please decide");
      return {
        type: "paused",
        state,
        parking: { requests: [again.request], calls: [{ ...call, gate: again.gate }, ...remaining.slice(1)], handles: new Map() },
      };
    }
    if (call.browser) {
      state = await recordBrowserResult(state, call, call.browser.requestId, resolutions, deps);
      remaining.shift();
      continue;
    }
    const answer = call.paused ? resolutions.get(call.paused.on) : undefined;
    if (answer && answer.status !== "resolved") {
      // The tool asked and was told no: it does not run again, exactly like a rejected gate.
      state = await refuse(
        state,
        call,
        answer.status,
        typeof answer.payload?.reason === "string" ? answer.payload.reason : undefined,
        deps,
      );
      remaining.shift();
      continue;
    }
    const definition = agent.tools.get(call.name);
    if (!definition) throw new HarborError("TOOL_FAILED", `The tool "${call.name}" is no longer available.`);
    if (definition.kind === "external" && state.transcript.some((m) => m.role === "tool" && m.toolCallId === call.toolCallId)) {
      // Background work its job finished: the result is in the conversation already.
      remaining.shift();
      continue;
    }
    if (definition.kind === "client" || definition.kind === "external") {
      throw new HarborError("INTERNAL", `Tool call ${call.toolCallId} of ${call.name} cannot run in the loop.`);
    }
    if (definition.kind === "private_input") {
      if (!call.privateInput) throw new HarborError("INTERNAL", `Private input call ${call.toolCallId} has no request.`);
      state = await deliverPrivateInput(state, definition, call, call.privateInput.requestId, resolutions, deps);
      remaining.shift();
      continue;
    }
    // Past here the call acts outside the database: only while this process still holds the run.
    await deps.fence?.();
    const ran = await usingGrant(call, state, deps, () =>
      definition.kind === "remote_agent"
        ? askRemoteAgent(definition, call, answer, deps)
        : executeServerTool(state, definition, call, answer, held, deps),
    );
    if (ran.type === "paused") {
      return {
        type: "paused",
        state,
        parking: {
          requests: [ran.request],
          calls: [{ ...call, paused: { on: ran.request.id, state: ran.toolState, handleKeys: ran.handles.keys() } }, ...remaining.slice(1)],
          handles: ran.handles.size > 0 ? new Map([[call.toolCallId, ran.handles]]) : new Map(),
        },
      };
    }
    const checked = definition.output.safeParse(ran.output);
    if (!checked.success) {
      await recordGrantUse(call, state, deps);
      throw new HarborError("TOOL_FAILED", `The tool ${call.name} answered outside its output schema.`);
    }
    state = await recordResult(state, call, checked.data, deps, ran.outbox);
    remaining.shift();
  }
  return { type: "finished", state };
}

/** A tool call either produced its output or must wait on the coordinator for `request`. */
type CallOutcome =
  | { type: "done"; output: unknown; outbox?: OutboxInsert[] }
  | { type: "paused"; request: PauseRequest; toolState: Record<string, unknown>; handles: HandleRegistry };

function pauseFor(
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

/**
 * Runs a server tool: with the owner's access token when it declares `auth` (parking for consent
 * when there is none), and parking when the tool pauses itself.
 */
async function executeServerTool(
  state: RunState,
  definition: ServerToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
  held: ReadonlyMap<string, HandleRegistry> | undefined,
  deps: RunLoopDeps,
): Promise<CallOutcome> {
  const decision = call.gate?.decision;
  const owner = { tenantId: state.tenantId, userId: state.ownerId };
  const auth = definition.auth;
  const broker = deps.credentials;
  if (auth && !broker)
    throw new HarborError("OAUTH_FAILED", `The tool ${call.name} needs an OAuth credential, and this runtime has no OAuth providers.`);
  const toolState = structuredClone(call.paused?.state ?? {});
  const handles = call.paused ? await HandleRegistry.reattach(call.paused.handleKeys, held?.get(call.toolCallId)) : new HandleRegistry();
  // A call that paused itself before keeps its state and handles through the consent, too.
  const consent = (): CallOutcome => {
    const id = deps.newId();
    const { authorizationUrl, providerName } = broker!.consent(auth!.provider, id);
    return pauseFor(
      call,
      {
        id,
        kind: "oauth",
        reason: "oauth",
        policy: "owner",
        message: `Connect your ${providerName} account to continue.`,
        detail: { provider: auth!.provider, scopes: [...auth!.scopes], authorizationUrl },
      },
      toolState,
      handles,
    );
  };
  let accessToken = auth ? await broker!.accessToken(owner, auth.provider, auth.scopes) : undefined;
  if (accessToken === null) return consent();

  for (let refreshed = false; ; refreshed = true) {
    const outbox: OutboxInsert[] = [];
    const ctx: ToolContext = {
      runId: state.runId,
      threadId: state.threadId,
      tenantId: state.tenantId,
      userId: state.ownerId,
      toolCallId: call.toolCallId,
      idempotencyKey: idempotencyKeyOf(state, call),
      approval:
        decision && call.gate
          ? decision.grantId
            ? { grantId: decision.grantId, approvedBy: decision.by }
            : { interactionId: call.gate.id, approvedBy: decision.by }
          : undefined,
      resumedWith: answer,
      state: toolState,
      handles,
      accessToken: accessToken ?? undefined,
      pause: (request) => {
        throw new PauseSignal(request);
      },
      credentialRejected: () => {
        throw new CredentialRejectedSignal();
      },
      recordInOutbox: ({ kind, details }) => {
        // The outbox keeps one record per tool call (its unique key).
        if (outbox.length > 0) throw new Error(`${call.name} recorded more than one outbox entry for one call`);
        const id = deps.newId();
        outbox.push({
          id,
          tenantId: state.tenantId,
          userId: state.ownerId,
          toolCallId: call.toolCallId,
          kind,
          details,
          approvedBy: decision?.by ?? null,
        });
        return id;
      },
    };
    try {
      return { type: "done", output: await definition.execute(call.args, ctx), outbox };
    } catch (thrown) {
      if (CredentialRejectedSignal.is(thrown) && auth) {
        // Refused once: a refresh may fix it (the token was revoked early). Refused again, or no
        // refresh possible: the grant is gone, and only the owner can give a new one.
        accessToken = refreshed ? null : await broker!.accessToken(owner, auth.provider, auth.scopes, { refresh: true });
        if (accessToken === null) return consent();
        continue;
      }
      if (!PauseSignal.is(thrown)) throw asToolFailure(call.name, thrown);
      // Fail loud at pause time: state that cannot be checkpointed would be lost on resume.
      assertPlainJson(toolState, "ctx.state");
      return pauseFor(
        call,
        { id: deps.newId(), kind: "approval", reason: "hitl", policy: thrown.request.policy ?? "owner", message: thrown.request.message },
        toolState,
        handles,
      );
    }
  }
}

/** A remote agent that echoes the credential it was given does not get it into Harbor's record. */
function withoutSecret(outcome: RemoteOutcome, secret: string): RemoteOutcome {
  const scrub = (text: string) => text.replaceAll(secret, "[credential]");
  return "prompt" in outcome ? { ...outcome, prompt: scrub(outcome.prompt) } : { ...outcome, text: scrub(outcome.text) };
}

/**
 * Sends the call's message to the remote agent — or, resumed, the owner's answer to the same
 * remote task — and parks again while the remote task needs input or a credential.
 */
async function askRemoteAgent(
  definition: RemoteAgentToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
  deps: RunLoopDeps,
): Promise<CallOutcome> {
  const remote = definition.agent;
  let outcome: RemoteOutcome;
  if (!call.paused) {
    outcome = await remote.send({ text: definition.message(call.args) });
  } else {
    const task = RemoteTaskState.parse(call.paused.state);
    if (!answer) throw new HarborError("INTERNAL", `Remote agent call ${call.toolCallId} resumed without an answer.`);
    if (task.prompt === "auth_required") {
      const { credential } = RemoteAuthAnswer.parse(answer.payload);
      outcome = withoutSecret(
        await remote.send({ text: "Signed in.", taskId: task.taskId, contextId: task.contextId, bearer: credential }),
        credential,
      );
    } else {
      outcome = await remote.send({ text: RemoteInputAnswer.parse(answer.payload).text, taskId: task.taskId, contextId: task.contextId });
    }
  }
  const name = await remote.name();
  switch (outcome.state) {
    case "completed":
      return { type: "done", output: { agent: name, status: "completed", text: outcome.text } satisfies RemoteAgentResult };
    case "input_required":
    case "auth_required":
      return pauseFor(
        call,
        {
          id: deps.newId(),
          kind: "a2a",
          reason: "a2a",
          policy: "owner",
          message: outcome.prompt,
          detail: { prompt: outcome.state, agent: name },
          answer: outcome.state === "auth_required" ? RemoteAuthAnswer : RemoteInputAnswer,
        },
        { taskId: outcome.taskId, contextId: outcome.contextId, prompt: outcome.state },
      );
    default:
      throw new HarborError(
        "REMOTE_AGENT_FAILED",
        `${name} ${outcome.state === "canceled" ? "cancelled" : outcome.state === "rejected" ? "refused" : "could not finish"} the task${outcome.text ? `: ${outcome.text.slice(0, 300)}` : "."}`,
        {
          agent: remote.url,
          state: outcome.state,
        },
      );
  }
}

/** A browser tool's delivered output (validated by the coordinator) becomes its result; a cancel, a refusal. */
async function recordBrowserResult(
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
async function deliverPrivateInput(
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

function withDecision(call: PendingCall, resolutions: ReadonlyMap<string, Resolution>): PendingCall {
  if (!call.gate || call.gate.decision) return call;
  const resolution = resolutions.get(call.gate.id);
  if (!resolution) return call;
  const approved = resolution.status === "resolved" && resolution.payload?.approved === true;
  const reason = typeof resolution.payload?.reason === "string" ? resolution.payload.reason : undefined;
  return { ...call, gate: { ...call.gate, decision: { approved, by: resolution.actorId, reason, status: resolution.status } } };
}

/**
 * A call told no (a rejected gate, a cancelled request): it never runs, its result says so, and
 * the run ends with that outcome.
 */
async function refuse(
  state: RunState,
  call: PendingCall,
  outcome: "rejected" | "cancelled",
  reason: string | undefined,
  deps: RunLoopDeps,
): Promise<RunState> {
  const next = await recordResult(state, call, { rejected: true, ...(reason ? { reason } : {}) }, deps);
  return { ...next, outcome };
}

async function recordResult(
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
 * Runs a call; when a standing approval let it through and it fails, the use is still recorded (with
 * the failure's write): the tool may have acted before it failed.
 */
async function usingGrant<T>(call: PendingCall, state: RunState, deps: RunLoopDeps, act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (error) {
    await recordGrantUse(call, state, deps);
    throw error;
  }
}

/** Records the use of the standing approval that let `call` through, if one did, with the next write. */
async function recordGrantUse(call: PendingCall, state: RunState, deps: RunLoopDeps): Promise<void> {
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

/** A call's idempotency key: the same for every execution of it, and telling nothing of the tenant, thread or call. */
function idempotencyKeyOf(state: RunState, call: PendingCall): string {
  const digest = createHash("sha256").update([state.tenantId, state.threadId, call.toolCallId].join("\u0000")).digest("base64url");
  return `harbor-${digest.slice(0, 32)}`;
}

/** A tool's own error text may hold anything (SQL, secrets): it goes to the log as the cause, not to clients. */
function asToolFailure(name: string, thrown: unknown): HarborError {
  if (HarborError.is(thrown)) return thrown;
  return Object.assign(new HarborError("TOOL_FAILED", `The tool ${name} failed.`), { cause: thrown });
}
