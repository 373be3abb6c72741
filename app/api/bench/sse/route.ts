import type { BaseEvent } from "@ag-ui/core";
import { settings } from "@/server/config";
import { chunkText, type LoggedEvent, type RunEvent } from "@/server/runtime";
import { toAguiEvents } from "@/server/transport/agui";
import { sseResponse } from "@/server/edge/sse";

export const dynamic = "force-dynamic";

/**
 * The benchmark's baseline: a bare SSE route on the same server that sends the same frames as a
 * chat turn — through the same mapping and encoder — with no identity, database or runtime.
 * Mounted only with HARBOR_BENCH=1.
 */
export async function POST(request: Request) {
  if (!settings().benchRoutes) {
    return Response.json({ error: { code: "NOT_FOUND", message: "Not found" } }, { status: 404 });
  }
  const {
    threadId = "bench",
    runId = "bench",
    text = "",
  } = (await request.json()) as {
    threadId?: string;
    runId?: string;
    text?: string;
  };
  const transport = { threadId, runId, peer: "1.x" as const };
  // The batches a chat turn writes: start, the streamed message, the end.
  const batches: RunEvent[][] = [
    [{ type: "run.started", runId, threadId, agentId: "bench" }],
    [
      { type: "text.started", messageId: "m" },
      ...chunkText(text).map((delta): RunEvent => ({ type: "text.delta", messageId: "m", delta })),
      { type: "text.ended", messageId: "m" },
    ],
    [
      {
        type: "snapshot",
        state: {},
        messages: [
          { id: "u", role: "user", content: "hello" },
          { id: "m", role: "assistant", content: text },
        ],
      },
      { type: "run.completed" },
    ],
  ];
  let seq = 0;
  async function* frames(): AsyncGenerator<BaseEvent[]> {
    for (const batch of batches) {
      const at = Date.now();
      yield batch.flatMap((event) => toAguiEvents({ runId, seq: ++seq, at, event } satisfies LoggedEvent, transport));
    }
  }
  // Pings as the real route does, so the baseline carries the same timer per stream.
  return sseResponse(frames(), request.signal, { pingMs: settings().ssePingMs });
}
