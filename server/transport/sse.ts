/**
 * Server-sent events from a route handler: one `data: <json>\n\n` frame per event (LF only),
 * headers that stop proxies and compression from buffering, and cleanup on client disconnect.
 */
import { EventEncoder } from "@ag-ui/encoder";
import type { BaseEvent } from "@ag-ui/core";

const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

const encoder = new EventEncoder();
const utf8 = new TextEncoder();

/** Several events as one chunk: one write to the socket instead of one per frame. */
export function encodeEvents(events: readonly BaseEvent[]): Uint8Array {
  return utf8.encode(events.map((e) => encoder.encodeSSE(e)).join(""));
}

/**
 * Streams the events an async iterable produces. When the client goes away the iterator is
 * returned (unsubscribing from the run); the run itself goes on.
 */
export function sseResponse(events: AsyncIterator<BaseEvent[]>, signal: AbortSignal, headers: Record<string, string> = {}): Response {
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) return controller.close();
        if (next.value.length > 0) controller.enqueue(encodeEvents(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await events.return?.();
    },
  });
  signal.addEventListener("abort", () => void events.return?.(), { once: true });
  return new Response(stream, { headers: { ...SSE_HEADERS, ...headers } });
}
