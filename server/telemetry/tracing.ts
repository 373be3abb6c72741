/**
 * Harbor's spans, on the OpenTelemetry API: a no-op until `startTracing` registered a provider
 * (register.ts), so they cost nothing when no exporter is configured. The GenAI semantic
 * conventions name what they cover — `invoke_agent` per stretch of a run on an instance, `chat` per
 * model request, `execute_tool` per tool call — and Harbor's own spans the rest: a pause from park
 * to decision, a steering instruction, a webhook delivery.
 *
 * A run's stretches (before and after each pause) may execute on different instances: the first
 * one's context is stored with the run (`runs.trace_parent`), and every later stretch, and the
 * pause spans between them, are its children. A stretch resumed after a pause links the pause's span.
 *
 * Nothing people typed is recorded unless the operator opts in (`HARBOR_OTEL_CAPTURE_CONTENT`), and
 * a private value never is: it never reaches a run's transcript, tool arguments or results.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";

const ENABLED = Symbol.for("harbor.tracing");
type Holder = { [ENABLED]?: { captureContent: boolean } };

/** Whether a provider was registered (an exporter is configured). */
export function tracingEnabled(): boolean {
  return (globalThis as Holder)[ENABLED] !== undefined;
}

/** Whether message content may go into spans (the operator opted in). */
export function capturingContent(): boolean {
  return (globalThis as Holder)[ENABLED]?.captureContent === true;
}

/** Marks tracing on for this process (register.ts, once its provider is registered). */
export function markTracing(options: { captureContent: boolean }): void {
  (globalThis as Holder)[ENABLED] = options;
}

const tracer = () => trace.getTracer("harbor");

/** The W3C `traceparent` of a span, as it is stored with a run. */
function traceparentOf(span: Span): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

const contextOf = (traceparent: string | undefined) =>
  traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();

/** Runs `work` inside `span`, ending it with `work`'s outcome (an error is recorded, and rethrown). */
async function within<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

export interface RunSegment {
  runId: string;
  threadId: string;
  agentId: string;
  tenantId: string;
  resumed: boolean;
  /** The run's stored context (a resumed stretch); absent for its first. */
  parent?: string;
}

/** Pauses decided here, by run: the next stretch of the run links their spans. Bounded: a run resumed elsewhere never collects its own. */
const decidedPauses = new Map<string, SpanContext[]>();
const MAX_DECIDED = 10_000;

/**
 * One stretch of a run on this instance: an `invoke_agent` span, child of the run's stored context
 * (or, for its first stretch, of whatever is active: the request that started it). `work` is given
 * the new span's `traceparent`, to store when the run has none yet.
 */
export function runSegmentSpan<T>(segment: RunSegment, work: (traceparent: string | undefined) => Promise<T>): Promise<T> {
  const links: Link[] = (decidedPauses.get(segment.runId) ?? []).map((context) => ({ context }));
  decidedPauses.delete(segment.runId);
  const span = tracer().startSpan(
    `invoke_agent ${segment.agentId}`,
    {
      kind: SpanKind.INTERNAL,
      links,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": segment.agentId,
        "gen_ai.agent.name": segment.agentId,
        "gen_ai.conversation.id": segment.threadId,
        "harbor.run.id": segment.runId,
        "harbor.tenant.id": segment.tenantId,
        "harbor.run.resumed": segment.resumed,
      },
    },
    contextOf(segment.parent),
  );
  return within(span, () => work(traceparentOf(span)));
}

/** Marks how the current stretch of a run ended (parked, completed, failed …). */
export function endSegment(outcome: string): void {
  trace.getActiveSpan()?.setAttribute("harbor.run.outcome", outcome);
}

export interface DecidedPause {
  runId: string;
  pauseId: string;
  kind: string;
  /** The AG-UI reason it was shown with (`hitl`, `oauth`, …), when it has one. */
  reason: string | null;
  decision: string;
  /** Who decided, by role: `owner` (the run's own user), or the decider's highest role. */
  decidedBy: string;
  parkedAt: Date;
  /** The run's stored context. */
  parent?: string;
}

/** A pause from park to decision, recorded when it is decided; the run's next stretch here links it. */
export function pauseSpan(pause: DecidedPause): void {
  const now = Date.now();
  const span = tracer().startSpan(
    `harbor.pause ${pause.kind}`,
    {
      startTime: pause.parkedAt,
      attributes: {
        "harbor.run.id": pause.runId,
        "harbor.pause.id": pause.pauseId,
        "harbor.pause.kind": pause.kind,
        ...(pause.reason ? { "harbor.pause.reason": pause.reason } : {}),
        "harbor.pause.decision": pause.decision,
        "harbor.pause.decided_by.role": pause.decidedBy,
        "harbor.pause.wait_ms": Math.max(0, now - pause.parkedAt.getTime()),
      },
    },
    contextOf(pause.parent),
  );
  span.end(now);
  if (decidedPauses.size >= MAX_DECIDED) decidedPauses.delete(decidedPauses.keys().next().value!);
  decidedPauses.set(pause.runId, [...(decidedPauses.get(pause.runId) ?? []), span.spanContext()]);
}

export interface ChatRequest {
  model: string | undefined;
  provider: string | undefined;
}

/** One model request: a `chat` span, with the tokens the model reported once `work` ends. */
export function chatSpan<T>(request: ChatRequest, work: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer().startSpan(`chat${request.model ? ` ${request.model}` : ""}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "gen_ai.operation.name": "chat",
      ...(request.model ? { "gen_ai.request.model": request.model } : {}),
      ...(request.provider ? { "gen_ai.provider.name": request.provider } : {}),
    },
  });
  return within(span, () => work(span));
}

/** What a model answered to the request its `chat` span stands for: the tokens it reported, and its text when the operator opted in. */
export function recordAnswer(span: Span, usage: { inputTokens: number; outputTokens: number } | undefined, text: string | undefined): void {
  if (usage) span.setAttributes({ "gen_ai.usage.input_tokens": usage.inputTokens, "gen_ai.usage.output_tokens": usage.outputTokens });
  if (text !== undefined && capturingContent()) {
    span.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: text }] }]));
  }
}

/** One tool call carried out here: an `execute_tool` span. */
export function toolSpan<T>(call: { name: string; callId: string; type: string }, work: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(`execute_tool ${call.name}`, {
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.name,
      "gen_ai.tool.call.id": call.callId,
      "gen_ai.tool.type": call.type === "server" ? "function" : "extension",
      "harbor.tool.kind": call.type,
    },
  });
  return within(span, work);
}

/** A steering instruction, in the run's trace when it has one. */
export function steerSpan<T>(steer: { runId: string; instruction: string; parent?: string }, work: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(
    `harbor.steer ${steer.instruction}`,
    { attributes: { "harbor.run.id": steer.runId, "harbor.steer.instruction": steer.instruction } },
    contextOf(steer.parent),
  );
  return within(span, work);
}

/** One webhook delivery attempt: a client span of its own trace. */
export function webhookSpan<T>(attempt: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer().startSpan("harbor.webhook.deliver", { kind: SpanKind.CLIENT, attributes: attempt }, ROOT_CONTEXT);
  return within(span, () => work(span));
}
