/**
 * `/api/metrics`: Prometheus's text format, readable with the bearer token of
 * `HARBOR_METRICS_TOKEN` (absent: metrics are off). Besides what the runtime and the database
 * record as they work (server/telemetry), each scrape reads the cluster-wide counts from the
 * database (runs by agent and status, open pauses by kind: the same from every instance) and this
 * instance's own load (runs executing and queued here).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { Gauge } from "prom-client";
import type { Database } from "@/server/db";
import { openPausesByKind, runCountsByStatus } from "@/server/db/queries/metrics";
import type { LoadReading } from "@/server/runtime";
import { enableMetrics } from "@/server/telemetry";

export interface MetricsSource {
  db: Database;
  load(): LoadReading;
}

const SOURCE = Symbol.for("harbor.metrics-source");
type Holder = { [SOURCE]?: MetricsSource };

/** The gauges read at scrape time, registered once per process; they read whichever source is current. */
function registerScrapeGauges(): void {
  const { registry } = enableMetrics();
  if (registry.getSingleMetric("harbor_runs")) return;
  const source = () => (globalThis as Holder)[SOURCE];
  const registers = [registry];
  new Gauge({
    name: "harbor_runs",
    help: "Runs by agent and status, cluster-wide (every instance reports the same: aggregate with max).",
    labelNames: ["agent", "status"] as const,
    registers,
    async collect() {
      this.reset();
      const db = source()?.db;
      for (const row of db ? await runCountsByStatus(db) : []) this.set({ agent: row.agentId, status: row.status }, row.n);
    },
  });
  new Gauge({
    name: "harbor_open_pauses",
    help: "Pauses waiting for an answer, by kind, cluster-wide (aggregate with max).",
    labelNames: ["kind"] as const,
    registers,
    async collect() {
      this.reset();
      const db = source()?.db;
      for (const row of db ? await openPausesByKind(db) : []) this.set({ kind: row.kind }, row.n);
    },
  });
  const load = (read: (reading: LoadReading) => number) =>
    function (this: Gauge) {
      const reading = source()?.load();
      this.set(reading ? read(reading) : 0);
    };
  new Gauge({ name: "harbor_active_runs", help: "Runs executing on this instance.", registers, collect: load((r) => r.activeRuns) });
  new Gauge({
    name: "harbor_queued_runs",
    help: "Runs waiting for a slot on this instance.",
    registers,
    collect: load((r) => r.queuedRuns),
  });
  new Gauge({
    name: "harbor_event_loop_delay_seconds",
    help: "The event loop's worst delay over the last second on this instance.",
    registers,
    collect: load((r) => r.eventLoopDelayMs / 1000),
  });
  new Gauge({
    name: "harbor_shedding",
    help: "1 while this instance refuses new runs (OVERLOADED).",
    registers,
    collect: load((r) => (r.shedding ? 1 : 0)),
  });
}

/** Starts collecting metrics and points the scrape gauges at this process's database and runtime (at start-up, when they can be read). */
export function exposeMetrics(source: MetricsSource): void {
  (globalThis as Holder)[SOURCE] = source;
  registerScrapeGauges();
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` carries the metrics token (compared in constant time). */
export function metricsAuthorized(authorization: string | null, token: string): boolean {
  const [scheme, given] = (authorization ?? "").split(" ");
  if (scheme?.toLowerCase() !== "bearer" || !given) return false;
  return timingSafeEqual(digest(given), digest(token));
}

/** The metrics in Prometheus's text format, and its content type. */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  const { registry } = enableMetrics();
  return { body: await registry.metrics(), contentType: registry.contentType };
}
