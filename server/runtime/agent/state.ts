/**
 * The run's serializable state: everything the run loop needs to continue a run,
 * as plain JSON so it can be checkpointed and restored.
 */
import type { CancelledBy, Checkpoint, TranscriptMessage } from "@/server/domain";

export type { TranscriptMessage } from "@/server/domain";

export interface RunState {
  runId: string;
  threadId: string;
  agentId: string;
  tenantId: string;
  ownerId: string;
  /** Planner steps taken so far. */
  step: number;
  /** The thread's conversation as the planner sees it. */
  transcript: TranscriptMessage[];
  /** The AG-UI shared state of the thread. */
  sharedState: Record<string, unknown>;
  /** Answers to the planner's own pauses, by interaction id. */
  answers?: Checkpoint["answers"];
  /** Set once a gate was rejected or cancelled: the run then ends with that status. */
  outcome?: Checkpoint["outcome"];
  /** The run's goal when an operator redirected it (the planner prefers it to the user's request). */
  goal?: Checkpoint["goal"];
  /** Context injected into the running loop, oldest first. */
  context?: Checkpoint["context"];
  /** Child runs this run started. */
  children?: Checkpoint["children"];
  /** Who cancelled the run, when someone did (not a cancelled gate): its ending says so. */
  cancelledBy?: CancelledBy;
  /** Tokens a model spent on this run so far. */
  usage?: Checkpoint["usage"];
  /** Model steps in a row whose tool calls were refused (unknown tool, invalid arguments). */
  refusedSteps?: number;
}
