import {
  EventType,
  type BaseEvent,
  type Message,
  type MessagesSnapshotEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type StateSnapshotEvent,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
} from "@ag-ui/core";
import { settings } from "@/server/config";
import { chunkText } from "@/server/runtime";
import { sseResponse } from "@/server/transport/sse";

export const dynamic = "force-dynamic";

/**
 * The benchmark's baseline: a bare SSE route on the same server that sends the same frames as a
 * chat turn (start, text chunks, snapshots, finish) with no identity, database or runtime.
 * Mounted only with HARBOR_BENCH=1.
 */
export async function POST(request: Request) {
  if (!settings().benchRoutes) {
    return Response.json({ error: { code: "NOT_FOUND", message: "Not found" } }, { status: 404 });
  }
  const { threadId = "bench", runId = "bench", text = "" } = (await request.json()) as {
    threadId?: string;
    runId?: string;
    text?: string;
  };
  const chunks = chunkText(text);
  const timestamp = Date.now();
  const transport = { threadId, runId };
  // Frames in the same batches as a chat turn writes them: start, the streamed message, the end.
  async function* frames(): AsyncGenerator<BaseEvent[]> {
    yield [{ type: EventType.RUN_STARTED, ...transport, timestamp } satisfies RunStartedEvent];
    yield [
      { type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant", timestamp } satisfies TextMessageStartEvent,
      ...chunks.map(
        (delta) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta, timestamp }) satisfies TextMessageContentEvent,
      ),
      { type: EventType.TEXT_MESSAGE_END, messageId: "m", timestamp } satisfies TextMessageEndEvent,
    ];
    const messages: Message[] = [
      { id: "u", role: "user", content: "hello" },
      { id: "m", role: "assistant", content: text },
    ];
    yield [
      { type: EventType.STATE_SNAPSHOT, snapshot: {}, timestamp } satisfies StateSnapshotEvent,
      { type: EventType.MESSAGES_SNAPSHOT, messages, timestamp } satisfies MessagesSnapshotEvent,
      { type: EventType.RUN_FINISHED, ...transport, outcome: { type: "success" }, timestamp } satisfies RunFinishedEvent,
    ];
  }
  return sseResponse(frames(), request.signal);
}
