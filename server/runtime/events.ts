/**
 * Runtime events: what happened in a run, in Harbor's own terms. Every event is appended to the
 * run's event log with a per-run sequence number before anyone sees it; the AG-UI transport,
 * timelines and reconnecting clients are all readers of that log.
 */
import type { ErrorCode } from "./errors";
import type { TranscriptMessage } from "./state";

export type RunEvent =
  | { type: "run.started"; runId: string; threadId: string; agentId: string }
  | { type: "text.started"; messageId: string }
  | { type: "text.delta"; messageId: string; delta: string }
  | { type: "text.ended"; messageId: string }
  | { type: "snapshot"; state: Record<string, unknown>; messages: TranscriptMessage[] }
  | { type: "run.completed" }
  | { type: "run.failed"; code: ErrorCode; message: string };

export interface LoggedEvent {
  readonly runId: string;
  readonly seq: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly event: RunEvent;
}

/** Events after which a run's transport stream has nothing more to say. */
export function isTerminal(event: RunEvent): boolean {
  return event.type === "run.completed" || event.type === "run.failed";
}
