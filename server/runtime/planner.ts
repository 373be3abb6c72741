/**
 * The planner interface. A planner looks at the run's serializable state and decides the next step;
 * the run loop carries it out. Planners never touch the database, the transport or the clock.
 */
import type { RunState } from "./state";

export type PlannerDecision =
  /** Say this text to the user as one assistant message (streamed in chunks). */
  | { type: "say"; text: string }
  /** Nothing more to do: the run completes. */
  | { type: "finish" };

export interface Planner {
  next(state: Readonly<RunState>): PlannerDecision | Promise<PlannerDecision>;
}

export interface AgentDefinition {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly planner: Planner;
}

export type AgentRegistry = ReadonlyMap<string, AgentDefinition>;
