/**
 * The SSE writer: ping comments while the events are silent (never inside a frame, never after
 * the end), and no timer or listener left behind however a stream ends. tRPC's subscription
 * streams get tRPC's ping event the same way.
 */
import { getEventListeners } from "node:events";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PING_FRAME, sseResponse, TRPC_PING_FRAME, withTrpcPings, writeSse } from "@/server/edge/sse";

const PING_MS = 1_000;

/** An event source the test drives: batches go out when pushed, the end when ended. */
function feed() {
  const waiting: ((result: IteratorResult<BaseEvent[]>) => void)[] = [];
  const ready: IteratorResult<BaseEvent[]>[] = [];
  const state = { returned: false };
  const settle = (result: IteratorResult<BaseEvent[]>) => {
    const reader = waiting.shift();
    if (reader) reader(result);
    else ready.push(result);
  };
  const iterator: AsyncIterator<BaseEvent[]> = {
    next: () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : new Promise((resolve) => waiting.push(resolve))),
    return: () => {
      state.returned = true;
      settle({ done: true, value: undefined });
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return {
    iterator,
    state,
    push: (...values: number[]) =>
      settle({ done: false, value: values.map((value) => ({ type: EventType.CUSTOM, name: "n", value }) as BaseEvent) }),
    end: () => settle({ done: true, value: undefined }),
  };
}

/** Reads a response's chunks as they come, each as its own string. */
function collect(res: Response) {
  const chunks: string[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      chunks.push(decoder.decode(value));
    }
  })();
  return { chunks, done, reader, pings: () => chunks.filter((c) => c === PING_FRAME).length };
}

function open(source = feed(), abort = new AbortController()) {
  const res = sseResponse(source.iterator, abort.signal, { pingMs: PING_MS });
  return { source, abort, res, read: collect(res) };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("sseResponse", () => {
  it("sends a ping comment each interval the events are silent, and none while they flow", async () => {
    const { source, read } = open();
    await vi.advanceTimersByTimeAsync(3 * PING_MS + 10);
    expect(read.chunks).toEqual([PING_FRAME, PING_FRAME, PING_FRAME]);

    // Events every half interval: the stream is never silent for a whole one.
    for (let i = 0; i < 6; i++) {
      source.push(i);
      await vi.advanceTimersByTimeAsync(PING_MS / 2);
    }
    expect(read.pings()).toBe(3);
    await vi.advanceTimersByTimeAsync(PING_MS);
    expect(read.pings()).toBe(4);
    source.end();
    await read.done;
  });

  it("never puts a ping inside an event frame: every chunk is whole frames", async () => {
    const { source, read } = open();
    for (let i = 0; i < 20; i++) {
      source.push(i, i + 1, i + 2);
      await vi.advanceTimersByTimeAsync(i % 3 === 0 ? PING_MS * 2 : 10);
    }
    source.end();
    await read.done;
    expect(read.pings()).toBeGreaterThan(0);
    const values: unknown[] = [];
    for (const chunk of read.chunks) {
      if (chunk === PING_FRAME) continue;
      expect(chunk.endsWith("\n\n")).toBe(true);
      for (const frame of chunk.slice(0, -2).split("\n\n")) {
        expect(frame.startsWith("data: ")).toBe(true);
        values.push((JSON.parse(frame.slice("data: ".length)) as { value: number }).value);
      }
    }
    expect(values).toHaveLength(60);
  });

  it("sends nothing after the events end, and leaves no timer or abort listener", async () => {
    const { source, abort, read } = open();
    source.push(1);
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    source.end();
    await read.done;
    const sent = read.chunks.length;
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(abort.signal, "abort")).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(10 * PING_MS);
    expect(read.chunks).toHaveLength(sent);
  });

  it("stops on the client's abort: the timer is cleared, the events returned, the stream ended", async () => {
    const { source, abort, read } = open();
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    expect(read.pings()).toBe(1);
    abort.abort();
    await read.done;
    expect(source.state.returned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * PING_MS);
    expect(read.pings()).toBe(1);
  });

  it("stops when the reader cancels the body", async () => {
    const { source, abort, read } = open();
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    await read.reader.cancel();
    expect(source.state.returned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(abort.signal, "abort")).toHaveLength(0);
  });

  it("serves a client that had already left without a ping or a timer", async () => {
    const abort = new AbortController();
    abort.abort();
    const { source, read } = open(feed(), abort);
    await read.done;
    expect(source.state.returned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(read.chunks).toEqual([]);
  });

  it("leaves nothing behind after 1,000 streams opened and ended every way", async () => {
    const streams = Array.from({ length: 1_000 }, () => open());
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    expect(vi.getTimerCount()).toBe(1_000);
    for (const [i, s] of streams.entries()) {
      if (i % 3 === 0) s.source.end();
      else if (i % 3 === 1) s.abort.abort();
      else await s.read.reader.cancel();
    }
    await Promise.all(streams.map((s) => s.read.done));
    expect(vi.getTimerCount()).toBe(0);
    expect(streams.every((s) => getEventListeners(s.abort.signal, "abort").length === 0)).toBe(true);
    expect(streams.every((s) => s.read.pings() === 1)).toBe(true);
  });
});

/** A byte stream the test writes into piece by piece, as tRPC writes a frame's lines. */
function pieces() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      state.cancelled = true;
    },
  });
  const utf8 = new TextEncoder();
  return {
    stream,
    state,
    write: (...parts: string[]) => parts.forEach((part) => controller.enqueue(utf8.encode(part))),
    end: () => controller.close(),
  };
}

/** tRPC's frame for a tracked value: event-less data, its id, and the blank line, each a chunk. */
const trpcFrame = (n: number) => [`data: {"n":${n}}\n`, `id: ${n}\n`, "\n\n"];

describe("withTrpcPings", () => {
  it("sends tRPC's ping event each silent interval, and passes each frame on as one chunk", async () => {
    const source = pieces();
    const read = collect(new Response(withTrpcPings(source.stream, PING_MS)));
    source.write('event: connected\ndata: {"reconnectAfterInactivityMs":3000}\n', "\n\n");
    await vi.advanceTimersByTimeAsync(2 * PING_MS + 10);
    source.write(...trpcFrame(1));
    await vi.advanceTimersByTimeAsync(PING_MS / 2);
    source.write(...trpcFrame(2));
    source.end();
    await read.done;
    expect(read.chunks).toEqual([
      'event: connected\ndata: {"reconnectAfterInactivityMs":3000}\n\n\n',
      TRPC_PING_FRAME,
      TRPC_PING_FRAME,
      'data: {"n":1}\nid: 1\n\n\n',
      'data: {"n":2}\nid: 2\n\n\n',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never puts a ping inside a frame whose lines arrive slowly", async () => {
    const source = pieces();
    const read = collect(new Response(withTrpcPings(source.stream, PING_MS)));
    const [data, id, end] = trpcFrame(7);
    source.write(data!);
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    source.write(id!);
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    source.write(end!);
    source.end();
    await read.done;
    // The pings went out before the frame, which stayed whole.
    expect(read.chunks).toEqual([TRPC_PING_FRAME, TRPC_PING_FRAME, 'data: {"n":7}\nid: 7\n\n\n']);
  });

  it("cancels the subscription's stream and stops its pings when the client goes away", async () => {
    const source = pieces();
    const read = collect(new Response(withTrpcPings(source.stream, PING_MS)));
    await vi.advanceTimersByTimeAsync(PING_MS + 10);
    await read.reader.cancel();
    expect(source.state.cancelled).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(read.chunks).toEqual([TRPC_PING_FRAME]);
  });

  it("holds back a subscription whose client reads nothing, instead of filling memory", async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          pulls++;
          controller.enqueue(new TextEncoder().encode(`data: ${pulls}\n\n\n`));
        },
      },
      { highWaterMark: 0 },
    );
    const res = new Response(withTrpcPings(endless, PING_MS));
    await vi.advanceTimersByTimeAsync(10);
    expect(pulls).toBeLessThan(5);
    await res.body!.cancel();
  });
});

/** writeSse on a real Node server: the same frames and pings, written to the socket. */
describe("writeSse", () => {
  let server: http.Server | undefined;
  beforeEach(() => {
    vi.useRealTimers();
  });
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serving(source: ReturnType<typeof feed>, pingMs: number): Promise<string> {
    server = http.createServer((_req, res) => writeSse(res, source.iterator, { pingMs, headers: { "x-request-id": "r1" } }));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("writes each batch as frames with the SSE headers, pings while silent, and ends with the events", async () => {
    const source = feed();
    const res = await fetch(await serving(source, 50));
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-request-id")).toBe("r1");
    const read = collect(res);
    source.push(1, 2);
    await new Promise((r) => setTimeout(r, 130));
    source.push(3);
    source.end();
    await read.done;
    const text = read.chunks.join("");
    expect(text.replaceAll(PING_FRAME, "")).toBe(
      ['{"type":"CUSTOM","name":"n","value":1}', '{"type":"CUSTOM","name":"n","value":2}', '{"type":"CUSTOM","name":"n","value":3}']
        .map((e) => `data: ${e}\n\n`)
        .join(""),
    );
    expect(read.pings()).toBeGreaterThanOrEqual(1);
    expect(text.endsWith(PING_FRAME)).toBe(false);
  });

  it("returns the iterator when the client goes away, and pings no more", async () => {
    const source = feed();
    const abort = new AbortController();
    const res = await fetch(await serving(source, 20), { signal: abort.signal });
    source.push(1);
    await res.body!.getReader().read();
    abort.abort();
    await vi.waitFor(() => expect(source.state.returned).toBe(true));
  });

  it("answers a request pipelined behind another once the first one ends (its response has no socket yet)", async () => {
    const first = feed();
    const second = feed();
    const sources = [first, second];
    server = http.createServer((_req, res) => writeSse(res, sources.shift()!.iterator, { pingMs: 60_000 }));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
    const ask = "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n";
    socket.write(ask + ask);
    await vi.waitFor(() => expect(sources).toHaveLength(0));
    second.push(2);
    second.end();
    first.push(1);
    first.end();
    await vi.waitFor(() => expect(received).toContain('"value":2'));
    socket.destroy();
    expect(received.indexOf('"value":1')).toBeLessThan(received.indexOf('"value":2'));
  });

  it("returns the iterator at once when the client left before the answer was ready", async () => {
    const source = feed();
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    server = http.createServer((_req, res) => {
      res.once("close", () => {
        writeSse(res, source.iterator, { pingMs: 20 });
        closed();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const abort = new AbortController();
    const asked = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { signal: abort.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await asked;
    await gone;
    expect(source.state.returned).toBe(true);
  });
});
