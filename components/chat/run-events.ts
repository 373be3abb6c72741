/**
 * How a run's logged events (`runs.events`) change the conversation a page shows. Applying them is
 * idempotent: a page that attaches to a run reads its log from the start, and a follower that
 * subscribes again (a reconnect, a second follower of the same run) sees events it has already
 * shown — a message already in the conversation is never added a second time.
 */
import { z } from "zod";
import type { RunEvent, RunStatus } from "@/server/domain";
import { withNotice, type NoticeState } from "./run-notices";
import type { ChatMessage } from "./types";

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RunFailure {
  message: string;
  /** The RUN_ERROR code, when the server refused or failed the run in-band. */
  code?: string;
  /** What the user can do about it: sign in again (the session ended), or reload what was saved. */
  remedy?: "sign-in" | "reload";
}

/** Harbor's error body (`{ error: { code, message } }`), as an AG-UI client quotes it after "HTTP 503: ". */
const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * What the person reads when the request that starts or continues a run was refused: Harbor's own
 * sentence and code when the answer carried them (say 503 OVERLOADED), never the raw JSON.
 */
export function failureOfRequest(error: unknown): RunFailure {
  const message = error instanceof Error ? error.message : String(error);
  const status = /HTTP (\d{3}):\s*([\s\S]*)$/.exec(message);
  const code = status?.[1] ?? /\b(401|403|404)\b/.exec(message)?.[1];
  if (code === "401") return { message: "Your session has ended.", remedy: "sign-in" };
  if (code === "403") return { message: "This conversation belongs to another user." };
  if (code === "404") return { message: "This conversation or agent does not exist." };
  const body = status ? errorBody.safeParse(parsedJson(status[2]!)) : null;
  if (body?.success) return { message: body.data.error.message, code: body.data.error.code };
  return { message: `The run failed: ${message}` };
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How a conversation's latest run stands (`threads.get`'s `latestRun`). */
export interface LatestRun {
  runId: string;
  status: RunStatus;
  error: { code: string; message: string } | null;
}

/** What a page shows of the conversation's latest run when it opens or catches up: the failure of one that failed. */
export function failureOf(run: LatestRun | null): RunFailure | null {
  return run?.status === "failed" && run.error ? { message: run.error.message, code: run.error.code } : null;
}

/**
 * Failures that say nothing about what was asked: the run stopped with the Harbor instance running
 * it. Running it again may well succeed, also after a partial answer.
 */
const INTERRUPTIONS: ReadonlySet<string> = new Set(["INSTANCE_LOST"]);
export const interrupted = (failure: RunFailure | null): boolean => failure?.code !== undefined && INTERRUPTIONS.has(failure.code);

/** The part of a conversation's state a run's events change. */
export interface FollowedState extends NoticeState {
  running: boolean;
  error: RunFailure | null;
  progress: Record<string, ToolProgress>;
}

export const withProgress = <S extends FollowedState>(
  s: S,
  event: { toolCallId: string; progress: number; total?: number; message?: string },
): S => ({
  ...s,
  progress: {
    ...s.progress,
    [event.toolCallId]: {
      progress: event.progress,
      ...(event.total !== undefined ? { total: event.total } : {}),
      ...(event.message ? { message: event.message } : {}),
    },
  },
});

const shown = (s: NoticeState, messageId: string) => s.messages.some((m) => m.id === messageId);

/** The streamed text so far, as a message of the conversation (once). */
export function endText<S extends NoticeState>(s: S, messageId: string): S {
  if (!s.streaming || s.streaming.id !== messageId) return s;
  const message: ChatMessage = { ...s.streaming, role: "assistant" };
  return { ...s, streaming: null, messages: shown(s, messageId) ? s.messages : [...s.messages, message] };
}

/** Text that starts streaming; a message already shown is not streamed again (a replayed log). */
export function startText<S extends NoticeState>(s: S, messageId: string): S {
  // Words came: the run no longer waits its turn or for its model to be asked again.
  const answered = { ...s, queuedAhead: null, retrying: null };
  if (shown(s, messageId)) return s.streaming?.id === messageId ? { ...answered, streaming: null } : answered;
  return { ...answered, streaming: { id: messageId, content: "" } };
}

export function addText<S extends NoticeState>(s: S, messageId: string, delta: string): S {
  return s.streaming?.id === messageId ? { ...s, streaming: { ...s.streaming, content: s.streaming.content + delta } } : s;
}

/** Applies one logged event of a run this page follows (attached to, or continued by someone else). */
export function applyRunEvent<S extends FollowedState>(s: S, event: RunEvent): S {
  switch (event.type) {
    case "run.started":
      return { ...s, running: true };
    case "run.queued":
      return withNotice({ ...s, running: true }, { type: "queued", position: event.position });
    case "run.cancelled":
      return withNotice(s, { type: "cancelled", by: event.by });
    case "model.retrying":
      return withNotice({ ...s, running: true }, { type: "retrying", attempt: event.attempt, maxAttempts: event.maxAttempts });
    case "text.started":
      return { ...startText(s, event.messageId), running: true };
    case "text.delta":
      return addText(s, event.messageId, event.delta);
    case "text.ended":
      return endText(s, event.messageId);
    case "tool.result":
      if (shown(s, event.messageId)) return s;
      return {
        ...s,
        running: true,
        messages: [...s.messages, { id: event.messageId, role: "tool", content: event.content, toolCallId: event.toolCallId }],
      };
    case "snapshot":
      return { ...s, messages: event.messages };
    case "run.completed":
    case "run.paused":
      return { ...s, running: false, streaming: null, queuedAhead: null, retrying: null };
    case "run.failed":
      return {
        ...s,
        running: false,
        streaming: null,
        queuedAhead: null,
        retrying: null,
        error: { message: event.message, code: event.code },
      };
    case "tool.progress":
      return withProgress(s, event);
    // What these change shows in the snapshot and text that follow, or in the thread's requests.
    case "tool.call":
      // The model answered (with a call): it is no longer being asked again.
      return s.retrying ? { ...s, retrying: null } : s;
    case "run.handed_off":
    case "pause.requested":
    case "client_tool.requested":
    case "external_wait.started":
    case "pause.reminder":
    case "pause.escalated":
    case "pause.resumed":
    case "grant.used":
    case "budget.warning":
    case "steer.applied":
    case "children.started":
      return s;
  }
}

/** Whether the run this event belongs to has stopped executing for now (ended, or waits on someone). */
export const stopsRun = (event: RunEvent) => event.type === "run.completed" || event.type === "run.failed" || event.type === "run.paused";
