/**
 * The model planner asks a failed request again itself (the SDK's own retries are off), saying so
 * before each wait — and never once any of the failed answer reached the user. Driven with the AI
 * SDK's mock model; the real HTTP wire is covered by the integration and protocol tests.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { APICallError } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { modelPlanner } from "@/server/agents/assistant/planner";
import type { ModelPart, RunState } from "@/server/runtime";

const state: RunState = {
  runId: "r1",
  threadId: "t1",
  agentId: "assistant",
  tenantId: "tenant-acme",
  ownerId: "user-alice",
  step: 0,
  transcript: [{ id: "u1", role: "user", content: "hello?" }],
  sharedState: {},
};

const unavailable = (retryAfter = "0") =>
  new APICallError({
    message: "Service Unavailable",
    url: "http://127.0.0.1:9/v1/chat/completions",
    requestBodyValues: {},
    statusCode: 503,
    responseHeaders: { "retry-after": retryAfter },
    isRetryable: true,
  });

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

function streamOf(parts: LanguageModelV4StreamPart[]) {
  return { stream: convertArrayToReadableStream<LanguageModelV4StreamPart>(parts) };
}

const answer = (text: string): LanguageModelV4StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
];

/** A model that answers each request with the next of `answers`: a stream, or an error thrown. */
function scripted(answers: (LanguageModelV4StreamPart[] | Error)[]) {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: () => {
      const next = answers[Math.min(call++, answers.length - 1)]!;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(streamOf(next));
    },
  });
}

async function partsOf(model: MockLanguageModelV4, signal = new AbortController().signal): Promise<ModelPart[]> {
  const planner = modelPlanner({ model, instructions: "Be brief.", tools: new Map() });
  const decision = await planner.next(state, { signal });
  if (decision.type !== "stream") throw new Error(`expected a model turn, got ${decision.type}`);
  const parts: ModelPart[] = [];
  for await (const part of decision.parts) parts.push(part);
  return parts;
}

describe("the model planner's retries", () => {
  it("says each retry before its wait, then streams the answer of the attempt that worked", async () => {
    const model = scripted([unavailable(), unavailable(), answer("Third time lucky.")]);
    const parts = await partsOf(model);
    expect(parts.filter((p) => p.type !== "usage")).toEqual([
      { type: "retrying", attempt: 2, maxAttempts: 3, delayMs: 0, reason: "HTTP 503" },
      { type: "retrying", attempt: 3, maxAttempts: 3, delayMs: 0, reason: "HTTP 503" },
      { type: "text", delta: "Third time lucky." },
    ]);
    expect(model.doStreamCalls).toHaveLength(3);
  });

  it("gives up after the third attempt: MODEL_UNAVAILABLE, with no fourth request", async () => {
    const model = scripted([unavailable()]);
    await expect(partsOf(model)).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(model.doStreamCalls).toHaveLength(3);
  });

  it("never asks again once the failed attempt's words reached the user", async () => {
    const broken: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Half an ans" },
      { type: "error", error: unavailable() },
    ];
    const model = scripted([broken, answer("never asked")]);
    const parts: ModelPart[] = [];
    const planner = modelPlanner({ model, instructions: "Be brief.", tools: new Map() });
    const decision = await planner.next(state, { signal: new AbortController().signal });
    if (decision.type !== "stream") throw new Error("expected a model turn");
    await expect(
      (async () => {
        for await (const part of decision.parts) parts.push(part);
      })(),
    ).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(parts).toEqual([{ type: "text", delta: "Half an ans" }]);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it("stops waiting at once when the run is cancelled during a retry's wait", async () => {
    const model = scripted([unavailable("30"), answer("too late")]);
    const cancel = new AbortController();
    const started = Date.now();
    setTimeout(() => cancel.abort(new Error("cancelled")), 100);
    await expect(partsOf(model, cancel.signal)).rejects.toThrow("cancelled");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(model.doStreamCalls).toHaveLength(1);
  });
});
