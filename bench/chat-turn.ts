/**
 * A plain chat turn (POST → RUN_FINISHED) against the bare SSE baseline route, at 1 and 50 clients.
 */
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";

export interface LoadResult {
  label: string;
  connections: number;
  turnsPerSecond: number;
  p50: number;
  p99: number;
  completed: number;
  failures: number;
}

export async function measure(options: {
  label: string;
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  body: () => unknown;
}): Promise<LoadResult> {
  let failures = 0;
  const result = await autocannon({
    url: options.url,
    method: "POST",
    connections: options.connections,
    duration: options.seconds,
    headers: { "content-type": "application/json", ...options.headers },
    requests: [
      {
        setupRequest: (req) => ({ ...req, body: JSON.stringify(options.body()) }),
        onResponse: (status, body) => {
          // A turn counts only when the stream really finished.
          if (status !== 200 || !body.includes('"type":"RUN_FINISHED"')) failures++;
        },
      },
    ],
  });
  return {
    label: options.label,
    connections: options.connections,
    turnsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    completed: result.requests.total,
    failures: failures + result.errors + result.timeouts + result.non2xx,
  };
}

export function chatBody() {
  return {
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: "user", content: "hello" }],
    tools: [],
    context: [],
    state: {},
  };
}
