/**
 * A model-driven planner on any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp's
 * server, LM Studio), through the AI SDK. Each step is one model request built from the run's
 * checkpointed conversation: the model's text streams to the user as it comes, its tool calls go
 * back to the run loop — which puts each through exactly the gate its tool declares — and after a
 * gate is answered the tool's result reaches the model as a `tool` message in the next request.
 * Steering reaches the next request: injected context and a redirected goal as instructions, a
 * user's message as a user message; a cancel aborts the request in flight.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  experimental_streamLanguageModelCall as streamModelCall,
  jsonSchema,
  tool as modelTool,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
} from "ai";
import { z } from "zod";
import {
  HarborError,
  modelIdOf,
  type ModelPart,
  type Planner,
  type RunState,
  type ToolRegistry,
  type TranscriptMessage,
} from "@/server/runtime";
import { DEFAULT_RETRY_POLICY, retryVerdict } from "./retry-policy";

export interface ModelSettings {
  /** The API root, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** How long one model request may take in all, and until its first chunk. */
  timeoutMs?: number;
  /**
   * Retries of a request that failed with 429 (honouring `Retry-After`), 5xx or a dropped connection
   * before any of its answer came (default 2: after 2 s, then 4 s); each wait is a `model.retrying` event.
   */
  maxRetries?: number;
  /** The most tokens one model request may answer with (sent as `max_tokens`). */
  maxTokens?: number;
  /** The most characters of text, reasoning and tool arguments one model request may stream before it is stopped. */
  maxOutputChars?: number;
}

/** Bounds for a model turn when the settings name none. */
export const MODEL_OUTPUT_DEFAULTS = { maxTokens: 4_096, maxOutputChars: 200_000 } as const;

export function languageModel(settings: ModelSettings): LanguageModel {
  const provider = createOpenAICompatible({
    name: "harbor-model",
    baseURL: settings.baseUrl,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    includeUsage: true,
  });
  return provider.chatModel(settings.model);
}

export interface ModelPlannerOptions {
  model: LanguageModel;
  instructions: string;
  tools: ToolRegistry;
  timeoutMs?: number;
  maxRetries?: number;
  maxTokens?: number;
  maxOutputChars?: number;
}

export function modelPlanner(options: ModelPlannerOptions): Planner {
  const own = modelTools(options.tools);
  // A run's tools are the agent's own plus its tenant's MCP tools: translated once per registry.
  const translated = new WeakMap<ToolRegistry, ToolSet>();
  const toolsFor = (registry: ToolRegistry | undefined): ToolSet => {
    if (!registry || registry === options.tools) return own;
    let tools = translated.get(registry);
    if (!tools) {
      tools = modelTools(registry);
      translated.set(registry, tools);
    }
    return tools;
  };
  return {
    next(state, ctx) {
      const last = state.transcript.at(-1);
      // A rejected or cancelled gate is terminal: nothing goes back to the model.
      if (state.outcome) return { type: "finish" };
      // The model answered in words (no tool calls): its turn is over.
      if (!last || (last.role === "assistant" && !last.toolCalls?.length) || last.role === "system") return { type: "finish" };
      const signal = ctx?.signal ?? new AbortController().signal;
      return { type: "stream", parts: modelParts(options, toolsFor(ctx?.tools), state, signal) };
    },
  };
}

/**
 * The model's answer, asked again after a transient failure (see retry-policy.ts) as long as none of
 * the failed attempt reached the user; each wait is announced first (`retrying`), so the user sees it.
 */
async function* modelParts(
  options: ModelPlannerOptions,
  tools: ToolSet,
  state: Readonly<RunState>,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}) };
  for (let attempt = 1; ; attempt++) {
    const outcome = yield* oneAttempt(options, tools, state, signal);
    if (signal.aborted) throw signal.reason ?? new Error("aborted");
    if (outcome.failure === undefined) return;
    const verdict = retryVerdict({ error: outcome.failure, attempt, streamed: outcome.streamed }, policy);
    if (!verdict.retry) {
      throw Object.assign(new HarborError("MODEL_UNAVAILABLE", "The model is not answering right now; try again in a moment."), {
        cause: outcome.failure,
      });
    }
    const { attempt: next, maxAttempts, delayMs, reason } = verdict;
    yield { type: "retrying", attempt: next, maxAttempts, delayMs, reason };
    await sleep(delayMs, signal);
    if (signal.aborted) throw signal.reason ?? new Error("aborted");
  }
}

/**
 * One model request, streamed; a failure is returned (with whether anything of it was streamed), not
 * thrown. One call to the model through the AI SDK's `streamLanguageModelCall`: the prompt and the
 * tools prepared and the calls parsed as `streamText` does, without its steps, retries and replays,
 * which cost three times the CPU per streamed part and do nothing for a planner that is one step.
 */
async function* oneAttempt(
  options: ModelPlannerOptions,
  tools: ToolSet,
  state: Readonly<RunState>,
  signal: AbortSignal,
): AsyncGenerator<ModelPart, { failure?: unknown; streamed: boolean }> {
  const failures: unknown[] = [];
  const maxChars = options.maxOutputChars ?? MODEL_OUTPUT_DEFAULTS.maxOutputChars;
  let streamed = 0;
  // Stops the request itself once the model says too much, so nothing more is read or buffered.
  const overflow = new AbortController();
  // How long one request may take in all (so also until its first part).
  const deadline = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
  // Whether any of the answer came (text, reasoning, a tool call): such an attempt is never asked again.
  let answered = false;
  try {
    const { stream } = await streamModelCall({
      model: options.model,
      instructions: instructionsFor(options.instructions, state),
      messages: toModelMessages(state.transcript),
      tools,
      maxOutputTokens: options.maxTokens ?? MODEL_OUTPUT_DEFAULTS.maxTokens,
      abortSignal: AbortSignal.any([signal, overflow.signal, ...(deadline ? [deadline] : [])]),
    });
    for await (const part of stream) {
      // Reasoning counts too: the SDK keeps it, though it is not shown.
      if (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-input-delta") {
        const size = part.type === "tool-input-delta" ? part.delta.length : part.text.length;
        if (size > 0) answered = true;
        streamed += size;
        if (streamed > maxChars) {
          overflow.abort();
          throw new HarborError("MODEL_OUTPUT_TOO_LARGE", `The model's answer passed ${maxChars} characters and was stopped.`, {
            limit: maxChars,
          });
        }
      }
      const taken = partOf(part);
      if (taken.answered) answered = true;
      if (taken.failure !== undefined) failures.push(taken.failure);
      if (taken.part) yield taken.part;
    }
  } catch (error) {
    if (HarborError.is(error)) throw error;
    // Not a cancel (that is the run's signal): the request ran out of time.
    failures.push(deadline?.aborted && !signal.aborted ? new Error("the model request timed out") : error);
  }
  return { ...(failures.length > 0 ? { failure: failures[0] } : {}), streamed: answered };
}

type CallPart = Awaited<ReturnType<typeof streamModelCall>>["stream"] extends AsyncIterable<infer P> ? P : never;

/** What one part of the model's stream means to the run: a part to yield, a failure, or that the model answered. */
function partOf(part: CallPart): { part?: ModelPart; failure?: unknown; answered?: boolean } {
  // The SDK's stream has some thirty part types; those not named here carry nothing Harbor uses.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (part.type) {
    case "text-delta":
      return { part: { type: "text", delta: part.text } };
    case "tool-call":
      // A call the SDK could not take comes again as `tool-error`, with the same id: taken there.
      if (part.invalid) return { answered: true };
      return { answered: true, part: { type: "tool_call", id: part.toolCallId, name: part.toolName, args: part.input } };
    case "tool-error":
      // A call the SDK could not take (unparsable arguments, unknown tool): the loop refuses it and
      // tells the model why.
      return { answered: true, part: { type: "tool_call", id: part.toolCallId, name: part.toolName, args: part.input } };
    case "model-call-end":
      // A model that reports no usage leaves none: no zeros stand for "not reported".
      if (part.usage.inputTokens === undefined && part.usage.outputTokens === undefined) return {};
      return { part: { type: "usage", inputTokens: part.usage.inputTokens ?? 0, outputTokens: part.usage.outputTokens ?? 0 } };
    case "error":
      return { failure: part.error };
    default:
      return {};
  }
}

/** Waits `ms`, or less when the run is cancelled meanwhile (the caller then sees the signal aborted). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The agent's instructions, then what operators steered in: a redirected goal, injected context. */
function instructionsFor(base: string, state: Readonly<RunState>): string {
  const parts = [base];
  if (state.goal) parts.push(`An operator redirected this run. Your goal is now: ${state.goal}`);
  for (const context of state.context ?? []) parts.push(`Context added by an operator: ${context}`);
  return parts.join("\n\n");
}

/**
 * The run's conversation as model messages. Notes Harbor wrote (system) stay out of it; what the
 * model said before its tool calls goes back as one message with them, as the model sent it, and
 * each call and its result under the model's own id for it (the thread may know it by another).
 */
export function toModelMessages(all: readonly TranscriptMessage[]): ModelMessage[] {
  const transcript = withoutUnansweredCalls(all);
  const toolNames = new Map<string, string>();
  const modelIds = new Map<string, string>();
  const messages: ModelMessage[] = [];
  let saidBeforeCalls: string | undefined;
  for (const [i, m] of transcript.entries()) {
    const next = transcript[i + 1];
    if (m.role === "user") messages.push({ role: "user", content: m.content });
    else if (m.role === "assistant" && m.toolCalls?.length) {
      for (const call of m.toolCalls) {
        toolNames.set(call.id, call.name);
        modelIds.set(call.id, modelIdOf(call));
      }
      const text = m.content || saidBeforeCalls;
      saidBeforeCalls = undefined;
      messages.push({
        role: "assistant",
        content: [
          ...(text ? [{ type: "text" as const, text }] : []),
          ...m.toolCalls.map((c) => ({ type: "tool-call" as const, toolCallId: modelIdOf(c), toolName: c.name, input: c.args })),
        ],
      });
    } else if (m.role === "assistant") {
      if (next?.role === "assistant" && next.toolCalls?.length && !next.content) saidBeforeCalls = m.content;
      else if (m.content) messages.push({ role: "assistant", content: m.content });
    } else if (m.role === "tool" && m.toolCallId) {
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: modelIds.get(m.toolCallId) ?? m.toolCallId,
            toolName: toolNames.get(m.toolCallId) ?? "tool",
            output: { type: "text", value: m.content },
          },
        ],
      });
    }
  }
  return messages;
}

/**
 * A call with no result by the time the model is asked again will never have one (its request
 * expired or was lost): providers refuse a call without its result, so it is left out — the words
 * said with it stay.
 */
function withoutUnansweredCalls(transcript: readonly TranscriptMessage[]): TranscriptMessage[] {
  const answered = new Set(transcript.flatMap((m) => (m.role === "tool" && m.toolCallId ? [m.toolCallId] : [])));
  return transcript.flatMap((m): TranscriptMessage[] => {
    if (!m.toolCalls?.some((c) => !answered.has(c.id))) return [m];
    const toolCalls = m.toolCalls.filter((c) => answered.has(c.id));
    if (toolCalls.length > 0) return [{ ...m, toolCalls }];
    const { toolCalls: _unanswered, ...words } = m;
    return words.content ? [words] : [];
  });
}

/**
 * The agent's tools as the model sees them: name, description and the input's JSON Schema. The SDK
 * neither validates nor runs them — the run loop checks each call against its tool and gates it.
 */
function modelTools(registry: ToolRegistry): ToolSet {
  const tools: ToolSet = {};
  for (const definition of registry.values()) {
    // An MCP tool's schema is the server's own JSON Schema, passed on as it was listed.
    const schema =
      definition.kind === "mcp" ? definition.inputSchema : z.toJSONSchema(definition.input, { io: "input", unrepresentable: "any" });
    tools[definition.name] = modelTool({
      description: definition.description,
      inputSchema: jsonSchema(schema as Parameters<typeof jsonSchema>[0]),
    });
  }
  return tools;
}
