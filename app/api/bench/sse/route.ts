import { EventType, type BaseEvent } from "@ag-ui/core";
import { settings } from "@/server/config";
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
  const chunks = text.match(/\s*\S+\s*/g) ?? [];
  // Frames in the same batches as a chat turn writes them: start, the streamed message, the end.
  async function* frames(): AsyncGenerator<BaseEvent[]> {
    const timestamp = Date.now();
    yield [{ type: EventType.RUN_STARTED, threadId, runId, timestamp } as BaseEvent];
    yield [
      { type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant", timestamp } as BaseEvent,
      ...chunks.map((delta) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta, timestamp }) as BaseEvent),
      { type: EventType.TEXT_MESSAGE_END, messageId: "m", timestamp } as BaseEvent,
    ];
    yield [
      { type: EventType.STATE_SNAPSHOT, snapshot: {}, timestamp } as BaseEvent,
      {
        type: EventType.MESSAGES_SNAPSHOT,
        messages: [
          { id: "u", role: "user", content: "hello" },
          { id: "m", role: "assistant", content: text },
        ],
        timestamp,
      } as BaseEvent,
      { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "success" }, timestamp } as BaseEvent,
    ];
  }
  return sseResponse(frames(), request.signal);
}
