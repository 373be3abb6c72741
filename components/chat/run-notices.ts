/**
 * What a run tells the people following it about itself — it waits its turn, its model is asked
 * again after a failure, or it was cancelled —
 * whichever channel it came on (an AG-UI CUSTOM event, or the run's log), and how the
 * conversation shows it.
 */
import { z } from "zod";
import { cancelledNote, WIRE_EVENTS, type CancelledBy } from "@/server/domain";
import type { ChatMessage } from "./types";

/** The part of a conversation's state a notice changes. */
export interface NoticeState {
  messages: ChatMessage[];
  streaming: { id: string; content: string } | null;
  /** While the run waits for its turn: how many runs are ahead of it. */
  queuedAhead: number | null;
  /** While a failed model request waits to be asked again: which attempt comes next, of how many. */
  retrying?: RetryNotice | null;
}

export interface RetryNotice {
  attempt: number;
  maxAttempts: number;
}

/** What `CUSTOM run.queued` and `CUSTOM run.cancelled` carry. */
const QueuedNotice = z.object({ runId: z.string(), position: z.number().int().min(0) });
const CancelledNotice = z.object({ runId: z.string(), by: z.object({ role: z.enum(["owner", "operator", "system"]) }) });
/** What `CUSTOM model.retrying` carries (the chat shows the attempt; the rest is for the console and programs). */
const RetryingNotice = z.object({ runId: z.string(), attempt: z.number().int().min(2), maxAttempts: z.number().int().min(2) });

/** What the run told its followers about itself, whichever channel it came on (AG-UI or the run's log). */
export type RunNotice =
  { type: "queued"; position: number } | ({ type: "retrying" } & RetryNotice) | { type: "cancelled"; by: CancelledBy };

export function runNotice(name: string, value: unknown): RunNotice | null {
  if (name === WIRE_EVENTS.runQueued) {
    const queued = QueuedNotice.safeParse(value);
    return queued.success ? { type: "queued", position: queued.data.position } : null;
  }
  if (name === WIRE_EVENTS.modelRetrying) {
    const retrying = RetryingNotice.safeParse(value);
    return retrying.success ? { type: "retrying", attempt: retrying.data.attempt, maxAttempts: retrying.data.maxAttempts } : null;
  }
  if (name === WIRE_EVENTS.runCancelled) {
    const cancelled = CancelledNotice.safeParse(value);
    return cancelled.success ? { type: "cancelled", by: cancelled.data.by.role } : null;
  }
  return null;
}

/**
 * A queued run shows its place; a model asked again shows which attempt it waits for (until its
 * words come, see `startText`); a cancelled one leaves a note in the conversation at once, worded
 * as the server's own note in the thread (which a snapshot or a reload brings instead). A note
 * already there since the last user message is not repeated.
 */
export function withNotice<S extends NoticeState>(s: S, notice: RunNotice): S {
  if (notice.type === "queued") return { ...s, queuedAhead: notice.position };
  if (notice.type === "retrying")
    return { ...s, queuedAhead: null, retrying: { attempt: notice.attempt, maxAttempts: notice.maxAttempts } };
  const lastUser = s.messages.findLastIndex((m) => m.role === "user");
  if (s.messages.slice(lastUser + 1).some((m) => m.role === "system" && /cancel/i.test(m.content))) return { ...s, queuedAhead: null };
  const note: ChatMessage = { id: `cancelled-${crypto.randomUUID()}`, role: "system", content: cancelledNote(notice.by) };
  const messages = s.streaming ? [...s.messages, { ...s.streaming, role: "assistant" as const }] : s.messages;
  return { ...s, queuedAhead: null, retrying: null, streaming: null, messages: [...messages, note] };
}
