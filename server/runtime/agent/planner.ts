/**
 * The planner interface. A planner looks at the run's serializable state and decides the next step;
 * the run loop carries it out. Planners never touch the database, the transport or the clock.
 */
import type { MultitaskPolicy } from "@/server/domain";
import type { RunState } from "./state";
import type { ToolRegistry } from "./tools";

export type PlannerDecision =
  /** Say this text to the user as one assistant message (streamed in chunks), then wait `thenWaitMs`. */
  | { type: "say"; text: string; thenWaitMs?: number }
  /** Call tools, in order; calls whose tool has an approval policy are gated before any runs. */
  | { type: "call_tools"; calls: PlannedCall[] }
  /**
   * Ask the run's owner a yes/no question before going on: the run parks on the coordinator; the
   * answer appears in `state.answers` under the interaction id.
   */
  | { type: "request_pause"; message: string }
  /**
   * Start child runs of the same agent, each on a thread of its own with this request; they run on
   * their own (the parent does not wait), and a cascading CANCEL of the parent reaches them.
   */
  | { type: "spawn"; requests: string[] }
  /**
   * A model's turn as it streams: text is shown as it comes; the tool calls it asks for are then
   * checked against their tools (a call that fails its tool's schema goes back to the model as a
   * tool error) and carried out like `call_tools`, through exactly the gates the tools declare.
   */
  | { type: "stream"; parts: AsyncIterable<ModelPart> }
  /** Nothing more to do: the run completes. */
  | { type: "finish" };

/** A tool call a planner asks for; `id` is the model's own name for it, when a model made it. */
export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** What a streaming model says, piece by piece. */
export type ModelPart =
  | { type: "text"; delta: string }
  | { type: "tool_call"; id: string; name: string; args: unknown }
  | { type: "usage"; inputTokens: number; outputTokens: number }
  /**
   * The request failed before any of its answer came and is asked again after `delayMs`: attempt
   * `attempt` of `maxAttempts`. `reason` is short and holds nothing secret ("HTTP 503").
   */
  | { type: "retrying"; attempt: number; maxAttempts: number; delayMs: number; reason: string };

/** What a planner may use while it decides. */
export interface PlannerContext {
  /** Aborts when the run is cancelled: a planner waiting on something slow (a model) stops at once. */
  readonly signal: AbortSignal;
  /** The tools this run may call: the agent's own, and its tenant's MCP tools when the agent takes them. */
  readonly tools?: ToolRegistry;
}

export interface Planner {
  next(state: Readonly<RunState>, ctx?: PlannerContext): PlannerDecision | Promise<PlannerDecision>;
}

export interface AgentDefinition {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly planner: Planner;
  readonly tools: ToolRegistry;
  /**
   * The agent's version, as approvals bind it besides the gated tool's own version (by default its
   * id): raise it when a change of the agent should re-ask the approvals pending at a deploy.
   */
  readonly version?: string;
  /** What a new message does while a run of the thread still executes (default `enqueue`). */
  readonly multitask?: MultitaskPolicy;
  /** Whether the run also offers the tools of MCP servers its tenant connected (model-driven agents). */
  readonly connectedTools?: boolean;
  /**
   * When background work (an external tool's job) finishes: `report` ends the run with the tool's
   * report (default); `continue` hands the result back to the planner, which goes on from it (a
   * model summarizes what the work found).
   */
  readonly afterWork?: "report" | "continue";
  /** The model a model-driven agent asks (`chat` spans name it): its name, and the wire it speaks. */
  readonly model?: { readonly name: string; readonly provider: string };
}

export type AgentRegistry = ReadonlyMap<string, AgentDefinition>;
