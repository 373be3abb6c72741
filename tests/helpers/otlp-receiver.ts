/**
 * A real OTLP/HTTP trace receiver for tests: Harbor's exporter POSTs `/v1/traces` to it in the
 * JSON encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), and it keeps every span, flattened.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  /** `service.instance.id` of the process that sent it. */
  instance: string | undefined;
}

export interface OtlpReceiver {
  /** What Harbor's `OTEL_EXPORTER_OTLP_ENDPOINT` is set to. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request body as it came (for what must never appear in it). */
  raw: string[];
  /** Resolves once `predicate` holds for the spans received (or rejects after `ms`). */
  until(predicate: (spans: readonly ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const valueOf = (value: AnyValue): string | number | boolean =>
  value.stringValue ?? value.boolValue ?? value.doubleValue ?? (value.intValue !== undefined ? Number(value.intValue) : "");
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
const nanosToMs = (nanos: string | number) => Number(BigInt(nanos) / 1_000_000n);

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

function flatten(body: ExportRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const instance = attributesOf(resourceSpans.resource?.attributes)["service.instance.id"];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        startMs: nanosToMs(span.startTimeUnixNano),
        endMs: nanosToMs(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        instance: typeof instance === "string" ? instance : undefined,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const raw: string[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        raw.push(body);
        spans.push(...flatten(JSON.parse(body) as ExportRequest));
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    raw,
    async until(predicate, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!predicate(spans)) {
        if (Date.now() > deadline) throw new Error(`spans never matched; got: ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return spans;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The settings that send a server's traces to `receiver` quickly, in JSON. */
export function tracingEnv(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_SERVICE_NAME: "harbor-test",
  };
}
