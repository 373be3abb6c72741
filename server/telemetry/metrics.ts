/**
 * Harbor's Prometheus metrics (prom-client), in one registry per process, kept on `globalThis`
 * because Next.js may load this module once per route bundle. The runtime and the database record
 * into them through `telemetry` (index.ts); `/api/metrics` exposes them with the gauges read from
 * the database at scrape time (server/ops/metrics.ts).
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

/** Seconds, from a second to a day: how long people take to decide. */
const WAIT_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1_800, 3_600, 4 * 3_600, 24 * 3_600];
/** Seconds, from a millisecond to ten: how long the system takes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    pauseWait: new Histogram({
      name: "harbor_pause_wait_seconds",
      help: "How long pauses waited from park to decision, by kind and decision.",
      labelNames: ["kind", "decision"] as const,
      buckets: WAIT_BUCKETS,
      registers,
    }),
    decisionLatency: new Histogram({
      name: "harbor_decision_latency_seconds",
      help: "From a decision reaching Harbor to its run going on (or ending), by kind.",
      labelNames: ["kind"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    webhookAttempts: new Counter({
      name: "harbor_webhook_attempts_total",
      help: "Webhook delivery attempts, by outcome (delivered, retry, failed).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    modelTokens: new Counter({
      name: "harbor_model_tokens_total",
      help: "Tokens models reported, by tenant and direction (input, output).",
      labelNames: ["tenant", "direction"] as const,
      registers,
    }),
    statementSeconds: new Histogram({
      name: "harbor_db_statement_seconds",
      help: "Database statement latency as the server sees it, by engine.",
      labelNames: ["engine"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };
}

export type HarborMetrics = ReturnType<typeof create>;

const KEY = Symbol.for("harbor.metrics");

/**
 * This process's metrics, once `enableMetrics` made them (a deployment that reads none — no
 * HARBOR_METRICS_TOKEN — collects none: no registry, no default collectors, nothing recorded).
 */
export function metrics(): HarborMetrics | undefined {
  return (globalThis as { [KEY]?: HarborMetrics })[KEY];
}

/** Starts collecting (at start-up, when metrics can be read); the registry the scrape reads. */
export function enableMetrics(): HarborMetrics {
  const holder = globalThis as { [KEY]?: HarborMetrics };
  return (holder[KEY] ??= create());
}
