/**
 * A request as an edge handler reads it — method, headers, a body reader and a signal that aborts
 * when the client leaves — made straight from Node's, for an edge served in front of Next's router.
 * It is what Next.js hands a route (the same headers, with the `x-forwarded-*` defaults it fills in)
 * without a web `Request` and its body stream, which cost more than the rest of the edge.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Reads a body chunk by chunk; a web stream's reader is one. */
export interface BodyReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(): Promise<void>;
}

/** What an edge handler reads of a request: a web `Request` has all of it, and so does `nodeRequest`'s. */
export interface EdgeRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly body: { getReader(): BodyReader } | null;
}

/** Node's headers, plus the `x-forwarded-*` that Next.js fills in when absent (base-server.ts). */
function headersOf(req: IncomingMessage, port: number): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  if (!headers.has("x-forwarded-host") && req.headers.host) headers.set("x-forwarded-host", req.headers.host);
  if (!headers.has("x-forwarded-port")) headers.set("x-forwarded-port", String(port));
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", encrypted ? "https" : "http");
  if (!headers.has("x-forwarded-for") && req.socket.remoteAddress) headers.set("x-forwarded-for", req.socket.remoteAddress);
  return headers;
}

/**
 * Reads the body as the handler asks for it. What it leaves unread (a body over its limit, a
 * request refused before its body mattered) is read off the wire and dropped once the answer is
 * sent, so the connection can carry the next request.
 */
function bodyReader(req: IncomingMessage, res: ServerResponse): BodyReader {
  const chunks: Buffer[] = [];
  let ended = false;
  let failed: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    req.pause();
    woken();
  };
  req.on("data", onData);
  req.pause();
  req.once("end", () => {
    ended = true;
    woken();
  });
  req.once("error", (error) => {
    failed = error;
    woken();
  });
  const discard = () => {
    req.off("data", onData);
    req.resume();
  };
  res.once("finish", discard);
  return {
    async read() {
      for (;;) {
        const chunk = chunks.shift();
        if (chunk) return { done: false, value: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) };
        if (failed) throw failed;
        if (ended) return { done: true, value: undefined };
        const next = new Promise<void>((resolve) => (wake = resolve));
        req.resume();
        await next;
      }
    },
    async cancel() {
      discard();
    },
  };
}

/** Node's request as an EdgeRequest; its signal aborts when the client goes away before the answer was sent. */
export function nodeRequest(req: IncomingMessage, res: ServerResponse, port: number): EdgeRequest {
  const controller = new AbortController();
  res.once("close", () => {
    // `finish` came first: the answer was sent whole, nobody left.
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? "GET";
  return {
    method,
    headers: headersOf(req, port),
    signal: controller.signal,
    body: method === "GET" || method === "HEAD" ? null : { getReader: () => bodyReader(req, res) },
  };
}
