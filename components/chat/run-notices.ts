/**
 * What a run tells the people following it about itself — it waits its turn, or it was cancelled —
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
}

/** What `CUSTOM run.queued` and `CUSTOM run.cancelled` carry. */
const QueuedNotice = z.object({ runId: z.string(), position: z.number().int().min(0) });
const CancelledNotice = z.object({ runId: z.string(), by: z.object({ role: z.enum(["owner", "operator", "system"]) }) });

/** What the run told its followers about itself, whichever channel it came on (AG-UI or the run's log). */
export type RunNotice = { type: "queued"; position: number } | { type: "cancelled"; by: CancelledBy };

export function runNotice(name: string, value: unknown): RunNotice | null {
  if (name === WIRE_EVENTS.runQueued) {
    const queued = QueuedNotice.safeParse(value);
    return queued.success ? { type: "queued", position: queued.data.position } : null;
  }
  if (name === WIRE_EVENTS.runCancelled) {
    const cancelled = CancelledNotice.safeParse(value);
    return cancelled.success ? { type: "cancelled", by: cancelled.data.by.role } : null;
  }
  return null;
}

/**
 * A queued run shows its place; a cancelled one leaves a note in the conversation at once, worded
 * as the server's own note in the thread (which a snapshot or a reload brings instead). A note
 * already there since the last user message is not repeated.
 */
export function withNotice<S extends NoticeState>(s: S, notice: RunNotice): S {
  if (notice.type === "queued") return { ...s, queuedAhead: notice.position };
  const lastUser = s.messages.findLastIndex((m) => m.role === "user");
  if (s.messages.slice(lastUser + 1).some((m) => m.role === "system" && /cancel/i.test(m.content))) return { ...s, queuedAhead: null };
  const note: ChatMessage = { id: `cancelled-${crypto.randomUUID()}`, role: "system", content: cancelledNote(notice.by) };
  const messages = s.streaming ? [...s.messages, { ...s.streaming, role: "assistant" as const }] : s.messages;
  return { ...s, queuedAhead: null, streaming: null, messages: [...messages, note] };
}
