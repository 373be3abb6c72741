/**
 * The run's serializable state: everything the run loop needs to continue a run,
 * as plain JSON so it can be checkpointed and restored.
 */
import type { MessageRole, StoredToolCall } from "@/server/db/schema";

export interface TranscriptMessage {
  id: string;
  role: MessageRole;
  content: string;
  /** An assistant message's tool calls. */
  toolCalls?: StoredToolCall[];
  /** A tool message's call. */
  toolCallId?: string;
}

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
  answers?: Record<string, { status: string; payload?: Record<string, unknown> }>;
  /** Set once a gate was rejected or cancelled: the run then ends with that status. */
  outcome?: "rejected" | "cancelled";
  /** The run's goal when an operator redirected it (the planner prefers it to the user's request). */
  goal?: string;
  /** Context injected into the running loop, oldest first. */
  context?: string[];
  /** Child runs this run started. */
  children?: string[];
}
