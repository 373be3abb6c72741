/**
 * Traces exported over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) is
 * set — the OpenTelemetry SDK reads the rest of its standard settings itself (`OTEL_SERVICE_NAME`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, headers, batch delays). Unset, nothing is loaded and every span
 * is the API's no-op. Next.js's own request spans join the same traces once a provider is registered.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { markTracing } from "./tracing";

export interface Tracing {
  /** Sends what is still buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

function configured(): boolean {
  const env = process.env;
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** `OTEL_BSP_SCHEDULE_DELAY`: how long spans wait before they are sent (default 5 s). */
function scheduleDelay(): number | undefined {
  const ms = Number(process.env.OTEL_BSP_SCHEDULE_DELAY);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

export async function startTracing(options: { instanceId: string; captureContent: boolean }): Promise<Tracing | undefined> {
  if (!configured()) return undefined;
  // Loaded only when tracing is on: a server without an exporter carries none of it.
  const [
    { TracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { AsyncLocalStorageContextManager },
    core,
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": process.env.OTEL_SERVICE_NAME ?? "harbor",
      "service.instance.id": options.instanceId,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: scheduleDelay() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  markTracing({ captureContent: options.captureContent });
  return { shutdown: () => provider.shutdown() };
}
