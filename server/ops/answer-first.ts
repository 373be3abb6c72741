/**
 * Health checks, and the routes given here, answered before Next.js's router. Under a burst, every
 * request Next.js serves takes many small steps, each queued behind the steps of every other
 * request in flight: a health check routed like them waited seconds while the event loop itself was
 * never late by more than ~60 ms. Answered in the HTTP server's own `request` callback, it waits for
 * nothing but that callback. A route given here (the AG-UI endpoint) is served there by its own
 * handler, with the headers next.config.mjs gives every API answer; its route in app/ stays, for
 * `next dev` and for any request that does not match exactly.
 *
 * Next.js creates its HTTP server before it loads our code and offers no hook into it; Node's
 * documented `http.server.request.start` diagnostics channel names the server of every request, so
 * the first request to reach this process's port puts our listener in front of Next's.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { livenessAnswer, readinessAnswer, type HealthAnswer, type HealthSource } from "./health";
import { API_POLICY, SECURITY_HEADERS } from "./security-headers.mjs";

const CHANNEL = "http.server.request.start";

const ANSWERS: Record<string, (source: HealthSource | undefined) => HealthAnswer> = {
  "/api/health": livenessAnswer,
  "/api/health/ready": readinessAnswer,
};

/** What Next.js would add to an API answer (next.config.mjs), added here too. */
const API_HEADERS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(SECURITY_HEADERS.map(({ key, value }) => [key.toLowerCase(), value])),
  "content-security-policy": API_POLICY,
};
const API_HEADER_ENTRIES = Object.entries(API_HEADERS);

/**
 * A route answered before Next's: one method, a path whose capture groups are its parameters
 * (decoded), and its handler, which answers on Node's response (whose headers it may override).
 */
export interface FirstRoute {
  method: string;
  path: RegExp;
  serve(req: IncomingMessage, res: ServerResponse, params: string[]): void;
}

function respond(res: ServerResponse, answer: HealthAnswer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...API_HEADERS, "content-type": "application/json", "cache-control": "no-store", ...answer.headers });
  res.end(body);
}

/** The route `req` asks for, with its parameters (decoded as Next.js decodes them), if it is one of `routes`. */
function routeOf(
  routes: readonly FirstRoute[],
  method: string | undefined,
  path: string,
): { route: FirstRoute; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.path.exec(path);
    if (!match) continue;
    try {
      return { route, params: match.slice(1).map((p) => decodeURIComponent(p)) };
    } catch {
      // Malformed escapes: Next.js answers those as it always did.
      return undefined;
    }
  }
  return undefined;
}

/** Our listener in front of the server's own (Next's): health checks and `routes` are answered, everything else passes on. */
function frontOf(server: Server, source: () => HealthSource | undefined, routes: readonly FirstRoute[]): void {
  const behind = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url?.split("?", 1)[0] ?? "";
    const answer = ANSWERS[path];
    if (answer && (req.method === "GET" || req.method === "HEAD")) return respond(res, answer(source()));
    const found = routeOf(routes, req.method, path);
    if (found) {
      for (const [name, value] of API_HEADER_ENTRIES) res.setHeader(name, value);
      return found.route.serve(req, res, found.params);
    }
    for (const listener of behind) listener.call(server, req, res);
  });
}

/** Installs the fast path on the server listening on `port` (the one `next start` opened). */
export function answerFirst(port: number, source: () => HealthSource | undefined, routes: readonly FirstRoute[] = []): void {
  const onRequest = (message: unknown) => {
    const server = (message as { server?: Server }).server;
    const address = server?.address();
    if (!server || typeof address !== "object" || address?.port !== port) return;
    unsubscribe(CHANNEL, onRequest);
    frontOf(server, source, routes);
  };
  subscribe(CHANNEL, onRequest);
}
