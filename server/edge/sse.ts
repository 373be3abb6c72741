/**
 * Server-sent events from a route handler: one `data: <json>\n\n` frame per event (LF only),
 * headers that stop proxies and compression from buffering, a ping comment whenever the stream has
 * been silent a while, and cleanup on client disconnect. tRPC's subscription streams get their
 * pings here too.
 */
import type { ServerResponse } from "node:http";
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

/**
 * A comment line: SSE clients (EventSource, both AG-UI clients) skip lines that start with a
 * colon, so it carries nothing, but proxies see traffic and keep an idle stream open.
 */
export const PING_FRAME = ": ping\n\n";
const pingBytes = utf8.encode(PING_FRAME);

/**
 * tRPC's own ping event, as its `sse.ping` option writes it: its client resets its inactivity
 * timer on it (a comment would not).
 */
export const TRPC_PING_FRAME = "event: ping\ndata: \n\n";
const trpcPingBytes = utf8.encode(TRPC_PING_FRAME);

/** Several events as one chunk: one write to the socket instead of one per frame. */
export function encodeEvents(events: readonly BaseEvent[]): Uint8Array {
  return utf8.encode(events.map((e) => encoder.encodeSSE(e)).join(""));
}

export interface SseOptions {
  /** How long the stream may stay silent before a ping comment goes out, in ms. */
  pingMs: number;
  headers?: Record<string, string>;
}

interface FrameWriter {
  write(chunk: Uint8Array): void;
  close(): void;
  fail(error: unknown): void;
  /** Stops the pings and every later write; the stream itself is closed by whoever ended it. */
  stop(): void;
}

/** Where a FrameWriter's chunks go: a web stream's controller, or Node's response. */
interface FrameSink {
  enqueue(chunk: Uint8Array): void;
  /** Nothing written is still waiting to go out: only then is the stream silent. */
  drained(): boolean;
  close(): void;
  error(error: unknown): void;
}

/** A web stream's controller as a sink. */
function streamSink(controller: ReadableStreamDefaultController<Uint8Array>): FrameSink {
  return {
    enqueue: (chunk) => controller.enqueue(chunk),
    drained: () => (controller.desiredSize ?? 0) > 0,
    close: () => controller.close(),
    error: (error) => controller.error(error),
  };
}

/**
 * Writes whole chunks of frames, and a ping after `pingMs` without a write. Each enqueue is one
 * whole chunk, so a ping can only fall between two frames, never inside one; once stopped, nothing
 * more is written, so no ping follows the end.
 */
function frameWriter(sink: FrameSink, pingMs: number, onStop: () => void, ping: Uint8Array = pingBytes): FrameWriter {
  let open = true;
  const pingIfSilent = () => {
    if (!open) return;
    // A frame still waiting in the queue means the stream is not silent: the client is just slow.
    if (sink.drained()) sink.enqueue(ping);
    timer.refresh();
  };
  const timer = setTimeout(pingIfSilent, pingMs);
  // A stream left open must not keep the process alive at shutdown.
  timer.unref?.();
  const stop = () => {
    if (!open) return;
    open = false;
    clearTimeout(timer);
    onStop();
  };
  return {
    write(chunk) {
      if (!open) return;
      sink.enqueue(chunk);
      timer.refresh();
    },
    close() {
      if (!open) return;
      stop();
      sink.close();
    },
    fail(error) {
      if (!open) return;
      stop();
      sink.error(error);
    },
    stop,
  };
}

/**
 * Streams the events an async iterable produces, with a ping comment after `pingMs` of silence
 * (a run waiting in the queue or for a model's first token says nothing for a long time, and
 * proxies close idle connections). When the client goes away the iterator is returned
 * (unsubscribing from the run); the run itself goes on.
 */
export function sseResponse(events: AsyncIterator<BaseEvent[]>, signal: AbortSignal, options: SseOptions): Response {
  let writer: FrameWriter | undefined;
  // The client left: end the stream here too, so nothing waits on it and no ping follows.
  const onAbort = () => {
    writer?.close();
    void events.return?.();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      writer = frameWriter(streamSink(controller), options.pingMs, () => signal.removeEventListener("abort", onAbort));
    },
    async pull() {
      try {
        const next = await events.next();
        if (next.done) return writer?.close();
        if (next.value.length > 0) writer?.write(encodeEvents(next.value));
      } catch (error) {
        writer?.fail(error);
      }
    },
    async cancel() {
      // Cancelled by the reader: the stream is closed already, only the pings stop.
      writer?.stop();
      await events.return?.();
    },
  });
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return new Response(stream, { headers: { ...SSE_HEADERS, ...options.headers } });
}

/**
 * The same stream written straight to Node's response, for an edge served in front of Next's
 * router (no web streams in between: they cost more than the rest of the edge). Each batch is
 * written once the socket took the last one; when the client goes away the iterator is returned.
 */
export function writeSse(res: ServerResponse, events: AsyncIterator<BaseEvent[]>, options: SseOptions): void {
  // The client left while the answer was being prepared: its "close" came already, so nothing
  // would ever return the iterator (and unsubscribe from the run). A response with no socket yet is
  // not gone: it was pipelined behind another on the same connection and is written after it.
  if (res.destroyed || res.socket?.destroyed === true) {
    void events.return?.();
    return;
  }
  res.writeHead(200, { ...SSE_HEADERS, ...options.headers });
  let gone = false;
  const writer = frameWriter(
    {
      enqueue: (chunk) => void res.write(chunk),
      drained: () => res.writableLength === 0,
      close: () => res.end(),
      error: () => res.destroy(),
    },
    options.pingMs,
    () => undefined,
  );
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    writer.stop();
    void events.return?.();
  };
  res.once("close", onClose);
  void (async () => {
    try {
      for (;;) {
        const next = await events.next();
        if (gone) return;
        if (next.done) return writer.close();
        if (next.value.length > 0) writer.write(encodeEvents(next.value));
        if (res.writableNeedDrain) await drained(res);
      }
    } catch (error) {
      writer.fail(error);
    } finally {
      res.off("close", onClose);
    }
  })();
}

/** Resolves once Node's response took what was queued, or closed. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

const LF = 0x0a;

/** Whether a chunk ends an SSE frame (a blank line). */
function endsFrame(chunk: Uint8Array): boolean {
  return chunk.length >= 2 && chunk[chunk.length - 1] === LF && chunk[chunk.length - 2] === LF;
}

function joined(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * A tRPC subscription's stream with tRPC's ping event after `pingMs` of silence. tRPC's own
 * `sse.ping` races every event against a timer of its own, which made reading a long run a quarter
 * slower and cost 75 MB more memory; here one timer is refreshed instead. tRPC writes a frame in
 * several chunks (event, data, id, blank line): they are passed on as one chunk per frame, so a
 * ping can only fall between two frames, and the socket gets one write per event. Pulled, so a
 * slow client holds back the subscription rather than filling memory.
 */
export function withTrpcPings(source: ReadableStream<Uint8Array>, pingMs: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let writer: FrameWriter | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      writer = frameWriter(streamSink(controller), pingMs, () => undefined, trpcPingBytes);
    },
    async pull() {
      const parts: Uint8Array[] = [];
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            if (parts.length > 0) writer?.write(joined(parts));
            return writer?.close();
          }
          parts.push(value);
          if (endsFrame(value)) return writer?.write(joined(parts));
        }
      } catch (error) {
        writer?.fail(error);
      }
    },
    async cancel(reason) {
      writer?.stop();
      await reader.cancel(reason);
    },
  });
}
