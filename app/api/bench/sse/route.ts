import { EventType, type BaseEvent } from "@ag-ui/core";
import { settings } from "@/server/config";
import { sseResponse } from "@/server/transport/sse";

export const dynamic = "force-dynamic";

/**
 * The benchmark's baseline: a bare SSE route on the same server that sends a chat turn's worth
 * of AG-UI frames with no identity, database or runtime. Mounted only with HARBOR_BENCH=1.
 */
export async function POST(request: Request) {
  if (!settings().benchRoutes) return Response.json({ error: { code: "NOT_FOUND", message: "Not found" } }, { status: 404 });
  const { threadId = "bench", runId = "bench", chunks = 30 } = (await request.json()) as {
    threadId?: string;
    runId?: string;
    chunks?: number;
  };
  async function* frames(): AsyncGenerator<BaseEvent[]> {
    const timestamp = Date.now();
    yield [{ type: EventType.RUN_STARTED, threadId, runId, timestamp } as BaseEvent];
    yield [{ type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant", timestamp } as BaseEvent];
    for (let i = 0; i < chunks; i++) {
      yield [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: `word${i} `, timestamp } as BaseEvent];
    }
    yield [{ type: EventType.TEXT_MESSAGE_END, messageId: "m", timestamp } as BaseEvent];
    yield [{ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "success" }, timestamp } as BaseEvent];
  }
  return sseResponse(frames(), request.signal);
}
