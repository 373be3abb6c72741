/** What a client asks of `startRun`, and the three ways it is answered. */
import type { MultitaskPolicy } from "@/server/domain";
import type { TranscriptMessage } from "../agent";
import type { HarborError } from "../errors";
import type { LoggedEvent } from "../log";
import type { ResolutionInput } from "../pause";

/** A message a client sent with its run request, already reduced to text. */
export interface IncomingMessage {
  id: string;
  role: TranscriptMessage["role"];
  content: string;
  /** A tool message's call (how a browser tool's output arrives). */
  toolCallId?: string;
}

export interface StartRunRequest {
  agentId: string;
  threadId: string;
  /** The client's id for this transport run (AG-UI `runId`). */
  transportRunId: string;
  messages: readonly IncomingMessage[];
  state?: Record<string, unknown>;
  /** Answers to the thread's open interrupts (AG-UI `resume[]`): continues the waiting run. */
  resume?: readonly ResolutionInput[];
  /**
   * The request carried a transcript (any message, or non-empty state), as sent: a private form's
   * answer must travel without one. Defaults to what `messages` and `state` show.
   */
  carriesTranscript?: boolean;
  /** The request that started the run, so its log lines can be found together. */
  requestId?: string;
  /** The run that started this one (child runs). */
  parentRunId?: string;
  /** The new thread's title, when not the message's first line. */
  title?: string;
  /** What this message does while a run of the thread still executes (default: the agent's policy). */
  multitask?: MultitaskPolicy;
  /**
   * Set by the runtime when another tenant holds `threadId`'s client id: the id the client chose,
   * stored with the thread and shown wherever the tenant sees the thread (see threads.ts).
   */
  clientThreadId?: string;
}

export interface StartedRun {
  runId: string;
  threadId: string;
  /** The run's events from this exchange's start to its end (parked, completed or failed), in batches. */
  events: AsyncIterableIterator<LoggedEvent[]>;
}

/**
 * A request the interaction rules refused after identity and thread checks passed: the transport
 * reports it in-band (AG-UI `RUN_ERROR`). Nothing was written.
 */
export interface RefusedRun {
  refused: HarborError;
}

/**
 * A resume that abandoned interrupts nobody can answer any more (expired, or lost with their
 * process): they are closed, their run has ended, and the transport run finishes at once as
 * cancelled, so the client stops holding them and the thread moves on.
 */
export interface AbandonedRun {
  abandoned: { runId: string; threadId: string };
}

/** Every answer to `startRun`. */
export type RunStart = StartedRun | RefusedRun | AbandonedRun;
