/**
 * The serving process's lifetime: open the database and run the migrations at start, so a
 * misconfiguration (or a second process on the embedded database's folder) stops the server at
 * once with a clear message instead of failing its first request; on SIGTERM/SIGINT let runs
 * finish, close the database, exit.
 */
import "server-only";
import { settings } from "@/server/config";
import { instanceId } from "@/server/instance-id";
import { answerFirst, type FirstRoute } from "@/server/ops/answer-first";
import { startTracing, type Tracing } from "@/server/telemetry";
import { serveAgentRun } from "@/server/transport/agui-route";
import { serveBenchSse } from "@/server/transport/bench-sse";
import { harbor, healthSource, shutdown } from "./harbor";
import { log } from "./log";

/**
 * `POST /api/agents/{agentId}/runs`, served before Next's router by the same handler as its route
 * in app/: Next's per-request work was most of what a park → resume cycle cost the server. Only
 * plain agent ids take this path; anything else reaches Next as before.
 */
const aguiRuns = (port: number): FirstRoute => ({
  method: "POST",
  path: /^\/api\/agents\/([A-Za-z0-9_.~-]+)\/runs$/,
  serve: (req, res, [agentId]) => serveAgentRun(req, res, agentId!, port),
});

/**
 * The benchmark's bare SSE route served the same way (`/api/bench/sse-first`; `/api/bench/sse` is
 * Next's), so a chat turn can also be measured against the same HTTP path.
 */
const benchSse = (port: number): FirstRoute => ({
  method: "POST",
  path: /^\/api\/bench\/sse-first$/,
  serve: (req, res) => serveBenchSse(req, res, port),
});

export async function start(): Promise<void> {
  let tracing: Tracing | undefined;
  try {
    // `next start` sets PORT before it loads this module; health checks on it skip Next's router, and
    // so does AG-UI — except under `next dev`, whose route reloads as its code changes.
    const port = Number(process.env.PORT);
    const throughNext = settings().aguiThroughNext || process.env.NODE_ENV === "development";
    if (port) answerFirst(port, healthSource, throughNext ? [] : [aguiRuns(port), ...(settings().benchRoutes ? [benchSse(port)] : [])]);
    tracing = await startTracing({ instanceId: instanceId(), captureContent: settings().otelCaptureContent });
    await harbor();
  } catch (error) {
    log.fatal({ err: error }, `Harbor cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const stop = (signal: NodeJS.Signals) => {
    log.info({ signal }, "shutting down");
    shutdown()
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  if (!process.env.NEXT_MANUAL_SIG_HANDLE) {
    // Next.js's own handler would exit first: this instance's work would wait for the others to find it dead.
    log.warn("NEXT_MANUAL_SIG_HANDLE is not set: on SIGTERM, Next.js exits before Harbor releases what it holds (npm start sets it)");
  }
}
