/**
 * The run loop: asks the planner for the next step, carries it out, repeats until the planner
 * finishes or the run must wait. It works only on the serializable `RunState` and reports through
 * the journal; parking itself is the coordinator's job — the loop only says what it waits for.
 *
 * A step's tool calls are announced (announce-calls.ts), checked (call-checks.ts) and run in order
 * (run-calls.ts), each by its tool's kind (server-tool.ts, remote-agent-call.ts, client-answers.ts).
 */
import { HarborError } from "../errors";
import type { RunEvent } from "../log";
import { chatSpan, recordAnswer } from "@/server/telemetry";
import { streamModelTurn, usageSince } from "./model-turn";
import type {
  AgentDefinition,
  ModelPart,
  PauseRequest,
  PlannedCall,
  PlannerDecision,
  ResumeInput,
  RunState,
  TranscriptMessage,
} from "../agent";
import { announceCalls } from "./announce-calls";
import { answerRefusedCalls, callsProblem } from "./call-checks";
import { plannerView } from "./planner-view";
import { runCalls } from "./run-calls";
import type { LoopResult, RunLoopDeps } from "./run-loop-types";

export type { LoopResult, RunLoopDeps, SafePoint } from "./run-loop-types";

/** Model steps in a row whose tool calls may be refused (sent back as errors) before the run fails. */
export const MAX_REFUSED_STEPS = 3;

/** How a planner step ended: the run goes on from `state` to the next step, or the loop ends. */
type StepEnd = LoopResult | { type: "next"; state: RunState };

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
    const decision = await flushUnlessImmediate(
      agent.planner.next(plannerView(state, deps.closedCalls), { signal, tools: agent.tools }),
      deps,
    );
    const end = await carryOutDecision({ ...state, step: state.step + 1 }, agent, decision, deps, signal);
    if (end.type !== "next") return end;
    state = end.state;
  }
}

/** Carries out one planner decision, on the state already counting its step. */
async function carryOutDecision(
  state: RunState,
  agent: AgentDefinition,
  decision: PlannerDecision,
  deps: RunLoopDeps,
  signal: AbortSignal,
): Promise<StepEnd> {
  switch (decision.type) {
    case "finish":
      return { type: "finished", state };
    case "say": {
      const next = await say(state, decision.text, deps);
      if (decision.thenWaitMs) {
        await deps.flush?.();
        await new Promise((resolve) => setTimeout(resolve, decision.thenWaitMs));
      }
      return { type: "next", state: next };
    }
    case "spawn": {
      if (!deps.spawn) throw new HarborError("INTERNAL", "This runtime cannot start child runs.");
      const children = await deps.spawn(state, decision.requests);
      await deps.append([{ type: "children.started", runIds: children }]);
      return { type: "next", state: { ...state, children: [...(state.children ?? []), ...children] } };
    }
    case "request_pause": {
      const request: PauseRequest = { id: deps.newId(), kind: "approval", policy: "owner", message: decision.message };
      return { type: "paused", state, parking: { requests: [request], calls: [], handles: new Map() } };
    }
    case "stream":
      return takeModelTurn(state, agent, decision.parts, deps, signal);
    case "call_tools":
      return asStepEnd(await callTools(state, agent, decision.calls, deps));
  }
}

/** A model's streamed turn: what it says is recorded as it comes, then its tool calls are checked and run. */
async function takeModelTurn(
  state: RunState,
  agent: AgentDefinition,
  parts: AsyncIterable<ModelPart>,
  deps: RunLoopDeps,
  signal: AbortSignal,
): Promise<StepEnd> {
  // Budgets are checked before the request is sent (the model is asked as `parts` is first read).
  if (deps.budget) {
    const warnings = await deps.budget.check(state);
    if (warnings.length > 0) await deps.append(warnings);
  }
  // The model may take a while to say its first word: what waits is seen before.
  await deps.flush?.();
  const turn = await chatSpan({ model: agent.model?.name, provider: agent.model?.provider }, async (span) => {
    const taken = await streamModelTurn(state, parts, deps, signal);
    const said = taken.said ? taken.state.transcript.at(-1)?.content : undefined;
    recordAnswer(span, usageSince(state.usage, taken.state.usage), said);
    return taken;
  });
  await deps.budget?.record(state, usageSince(state.usage, turn.state.usage));
  // A model that said nothing and called nothing has nothing more to do.
  if (!turn.aborted && turn.calls.length === 0 && !turn.said) return { type: "finished", state: turn.state };
  if (turn.aborted || turn.calls.length === 0) return { type: "next", state: turn.state };
  const problem = callsProblem(agent, turn.calls);
  if (problem) {
    const refused = await answerRefusedCalls(turn.state, turn.calls, problem, deps);
    if ((refused.refusedSteps ?? 0) >= MAX_REFUSED_STEPS) {
      throw new HarborError("TOOL_FAILED", `The model's tool calls were refused ${MAX_REFUSED_STEPS} times in a row: ${problem}`);
    }
    return { type: "next", state: refused };
  }
  // Checked just above: every call names a tool and matches its input schema.
  return asStepEnd(await callTools({ ...turn.state, refusedSteps: 0 }, agent, turn.calls as PlannedCall[], deps));
}

/** Calls that all ran leave the run to go on with its next step; a pause ends the loop. */
function asStepEnd(result: LoopResult): StepEnd {
  return result.type === "paused" ? result : { type: "next", state: result.state };
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
