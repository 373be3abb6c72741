/**
 * Runtime events → AG-UI events. Pure mapping; the wire rules (no nulls, integer timestamps,
 * snapshots right before RUN_FINISHED) are kept here.
 */
import {
  EventType,
  type BaseEvent,
  type Message,
  type MessagesSnapshotEvent,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type StateSnapshotEvent,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
} from "@ag-ui/core";
import type { LoggedEvent, TranscriptMessage } from "@/server/runtime";

/** The transport run these events are sent to: AG-UI names runs by the client's `runId`. */
export interface TransportRun {
  threadId: string;
  runId: string;
}

/** Transcript messages as AG-UI messages. Tool messages join transcripts with tool calls (next issues). */
function toAguiMessage(m: TranscriptMessage): Message[] {
  switch (m.role) {
    case "user":
    case "assistant":
    case "system":
    case "developer":
      return [{ id: m.id, role: m.role, content: m.content }];
    case "tool":
      return [];
  }
}

export function toAguiEvents(logged: LoggedEvent, transport: TransportRun): BaseEvent[] {
  const timestamp = logged.at;
  const e = logged.event;
  switch (e.type) {
    case "run.started":
      return [{ type: EventType.RUN_STARTED, ...transport, timestamp } satisfies RunStartedEvent];
    case "text.started":
      return [
        { type: EventType.TEXT_MESSAGE_START, messageId: e.messageId, role: "assistant", timestamp } satisfies TextMessageStartEvent,
      ];
    case "text.delta":
      return [
        { type: EventType.TEXT_MESSAGE_CONTENT, messageId: e.messageId, delta: e.delta, timestamp } satisfies TextMessageContentEvent,
      ];
    case "text.ended":
      return [{ type: EventType.TEXT_MESSAGE_END, messageId: e.messageId, timestamp } satisfies TextMessageEndEvent];
    case "snapshot":
      return [
        { type: EventType.STATE_SNAPSHOT, snapshot: e.state, timestamp } satisfies StateSnapshotEvent,
        { type: EventType.MESSAGES_SNAPSHOT, messages: e.messages.flatMap(toAguiMessage), timestamp } satisfies MessagesSnapshotEvent,
      ];
    case "run.completed":
      return [{ type: EventType.RUN_FINISHED, ...transport, outcome: { type: "success" }, timestamp } satisfies RunFinishedEvent];
    // RUN_ERROR carries the runtime's code itself: the documented, closed set clients switch on.
    case "run.failed":
      return [{ type: EventType.RUN_ERROR, message: e.message, code: e.code, timestamp } satisfies RunErrorEvent];
  }
}
