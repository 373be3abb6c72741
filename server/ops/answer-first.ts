/**
 * Health checks answered before Next.js's router. Under a burst, every request Next.js serves takes
 * many small steps, each queued behind the steps of every other request in flight: a health check
 * routed like them waited seconds while the event loop itself was never late by more than ~60 ms.
 * Answered in the HTTP server's own `request` callback, it waits for nothing but that callback.
 *
 * Next.js creates its HTTP server before it loads our code and offers no hook into it; Node's
 * documented `http.server.request.start` diagnostics channel names the server of every request, so
 * the first request to reach this process's port puts our listener in front of Next's.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { API_POLICY, SECURITY_HEADERS } from "./security-headers.mjs";
import { livenessAnswer, readinessAnswer, type HealthAnswer, type HealthSource } from "./health";

const CHANNEL = "http.server.request.start";

const ANSWERS: Record<string, (source: HealthSource | undefined) => HealthAnswer> = {
  "/api/health": livenessAnswer,
  "/api/health/ready": readinessAnswer,
};

/** What Next.js would add to an API answer (next.config.mjs), added here too. */
const API_HEADERS = {
  ...Object.fromEntries(SECURITY_HEADERS.map(({ key, value }) => [key.toLowerCase(), value])),
  "content-security-policy": API_POLICY,
};

function respond(res: ServerResponse, answer: HealthAnswer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...API_HEADERS, "content-type": "application/json", "cache-control": "no-store", ...answer.headers });
  res.end(body);
}

/** Our listener in front of the server's own (Next's): health checks are answered, everything else passes on. */
function frontOf(server: Server, source: () => HealthSource | undefined): void {
  const behind = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url?.split("?", 1)[0] ?? "";
    const answer = ANSWERS[path];
    if (answer && (req.method === "GET" || req.method === "HEAD")) return respond(res, answer(source()));
    for (const listener of behind) listener.call(server, req, res);
  });
}

/** Installs the fast path on the server listening on `port` (the one `next start` opened). */
export function answerHealthFirst(port: number, source: () => HealthSource | undefined): void {
  const onRequest = (message: unknown) => {
    const server = (message as { server?: Server }).server;
    const address = server?.address();
    if (!server || typeof address !== "object" || address?.port !== port) return;
    unsubscribe(CHANNEL, onRequest);
    frontOf(server, source);
  };
  subscribe(CHANNEL, onRequest);
}
