/**
 * Browser-tool round trips and background work under polling, over HTTP against a running server:
 * - client tool: tool call → tool message → continuation (the second request's latency);
 * - external waits: how many can be in progress at once while 50 clients poll their responses,
 *   with the polling load measured against polling a bare route of the same server.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { keepBusy, percentile } from "./stats";

export interface RoundTrip {
  inFlight: number;
  roundTripsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

/** An AG-UI run request's body on `threadId`. */
export const body = (threadId: string, messages: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ threadId, runId: randomUUID(), tools: [], context: [], state: {}, forwardedProps: {}, messages, ...extra });

/** A whole SSE answer's events. */
export async function events(res: Response): Promise<Record<string, unknown>[]> {
  return (await res.text())
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
}

export async function measureClientToolRoundTrips(baseUrl: string, bearer: string, inFlight: number, seconds: number): Promise<RoundTrip> {
  const url = `${baseUrl}/api/agents/concierge/runs`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
  const { samples, failures, elapsedMs } = await keepBusy(inFlight, seconds, async () => {
    const threadId = randomUUID();
    const ask = { id: randomUUID(), role: "user", content: "what is my time zone?" };
    const asked = await events(await fetch(url, { method: "POST", headers, body: body(threadId, [ask]) }));
    const request = asked.find((e) => e.name === "harnest.client_tool")?.value as { toolCallId: string } | undefined;
    if (!request) return null;
    const t0 = performance.now();
    const answered = await events(
      await fetch(url, {
        method: "POST",
        headers,
        body: body(threadId, [ask, { id: randomUUID(), role: "tool", toolCallId: request.toolCallId, content: '{"timeZone":"UTC"}' }]),
      }),
    );
    return answered.at(-1)?.type === "RUN_FINISHED" ? { latency: performance.now() - t0 } : null;
  });
  const latencies = samples.latency ?? [];
  return {
    inFlight,
    roundTripsPerSecond: latencies.length / (elapsedMs / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
  };
}

export interface PollingLoad {
  label: string;
  inProgress: number;
  pollsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

/** Starts `count` background waits (each stays in progress for the run of the measurement). */
export async function startWaits(baseUrl: string, bearer: string, count: number): Promise<string[]> {
  const url = `${baseUrl}/api/agents/concierge/runs`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next++ < count) {
        const finished = (
          await events(
            await fetch(url, {
              method: "POST",
              headers,
              body: body(randomUUID(), [{ id: randomUUID(), role: "user", content: "research load" }]),
            }),
          )
        ).at(-1) as { result?: { status: string; responseId: string } } | undefined;
        if (finished?.result?.status === "in_progress") ids.push(finished.result.responseId);
      }
    }),
  );
  return ids;
}

/** 50 clients polling `paths` round robin (responses, or the bare baseline route). */
export async function measurePolling(
  baseUrl: string,
  bearer: string,
  label: string,
  paths: string[],
  seconds: number,
  inProgress: number,
): Promise<PollingLoad> {
  let turn = 0;
  let failures = 0;
  const result = await autocannon({
    url: baseUrl,
    connections: 50,
    duration: seconds,
    headers: { authorization: `Bearer ${bearer}` },
    requests: [
      {
        method: "GET",
        setupRequest: (req) => ({ ...req, path: paths[turn++ % paths.length]! }),
        onResponse: (status) => {
          if (status !== 200) failures++;
        },
      },
    ],
  });
  return {
    label,
    inProgress,
    pollsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: failures + result.errors + result.timeouts,
  };
}
