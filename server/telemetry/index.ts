/**
 * The one hook point for operations: the runtime and the database say what happened here, in
 * words of their own, and telemetry turns it into metrics (and spans). Importing it costs nothing
 * but the calls, and those nothing until metrics are enabled; nothing here may throw into the caller.
 */
import { metrics } from "./metrics";

export { enableMetrics, metrics, type HarborMetrics } from "./metrics";

export const telemetry = {
  /** A pause was decided: how long it waited, and how it was decided. */
  pauseDecided(kind: string, decision: string, waitedMs: number): void {
    metrics()?.pauseWait.observe({ kind, decision }, Math.max(0, waitedMs) / 1000);
  },
  /** A decision reached Harbor and its run went on (or ended) this long after. */
  decisionApplied(kind: string, ms: number): void {
    metrics()?.decisionLatency.observe({ kind }, Math.max(0, ms) / 1000);
  },
  webhookAttempt(outcome: "delivered" | "retry" | "failed"): void {
    metrics()?.webhookAttempts.inc({ outcome });
  },
  /** Tokens a model reported for one request. */
  modelTokens(tenantId: string, inputTokens: number, outputTokens: number): void {
    const modelTokens = metrics()?.modelTokens;
    if (!modelTokens) return;
    if (inputTokens > 0) modelTokens.inc({ tenant: tenantId, direction: "input" }, inputTokens);
    if (outputTokens > 0) modelTokens.inc({ tenant: tenantId, direction: "output" }, outputTokens);
  },
  /** Whether statements are timed at all (metrics are read here). */
  timingStatements: (): boolean => metrics() !== undefined,
  statement(engine: "pglite" | "postgres", ms: number): void {
    metrics()?.statementSeconds.observe({ engine }, ms / 1000);
  },
};

export * from "./tracing";
export type { Span } from "@opentelemetry/api";
export { startTracing, type Tracing } from "./register";
