import { APICallError, StreamProviderError } from "ai";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, retryVerdict } from "@/server/agents/assistant/retry-policy";

/** A failed HTTP call as the AI SDK reports it; its URL and body hold what must never be told. */
const httpError = (statusCode: number | undefined, headers?: Record<string, string>) =>
  new APICallError({
    message: `Bad gateway at http://10.0.0.1/v1 for "my secret prompt"`,
    url: "http://127.0.0.1:9/v1/chat/completions?key=sk-secret",
    requestBodyValues: { messages: [{ role: "user", content: "my secret prompt" }] },
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(headers ? { responseHeaders: headers } : {}),
    responseBody: '{"error":"sk-secret"}',
    // The SDK's own rule: 408, 409, 429, 5xx and a lost connection may succeed if asked again.
    isRetryable: statusCode === undefined || statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500,
  });

const failed = (error: unknown, attempt = 1, streamed = false) => retryVerdict({ error, attempt, streamed, now: 0 });

describe("when a failed model request is asked again", () => {
  it("retries twice with the SDK's backoff — 2 s, then 4 s — then gives up", () => {
    expect(failed(httpError(503), 1)).toEqual({ retry: true, attempt: 2, maxAttempts: 3, delayMs: 2_000, reason: "HTTP 503" });
    expect(failed(httpError(500), 2)).toEqual({ retry: true, attempt: 3, maxAttempts: 3, delayMs: 4_000, reason: "HTTP 500" });
    expect(failed(httpError(503), 3)).toEqual({ retry: false });
    // The total wait is the SDK's: 6 s before the third and last attempt.
    expect(DEFAULT_RETRY_POLICY).toMatchObject({ maxRetries: 2, initialDelayMs: 2_000, backoffFactor: 2 });
  });

  it("retries a lost connection and an overloaded stream, never a request the provider refused", () => {
    expect(failed(httpError(undefined))).toMatchObject({ retry: true, reason: "no connection" });
    expect(failed(new StreamProviderError({ message: "overloaded", isRetryable: true }))).toMatchObject({
      retry: true,
      reason: "provider error",
    });
    expect(failed(new StreamProviderError({ message: "overloaded", statusCode: 529, isRetryable: true }))).toMatchObject({
      reason: "HTTP 529",
    });
    for (const status of [400, 401, 403, 404, 422]) expect(failed(httpError(status))).toEqual({ retry: false });
    expect(failed(new StreamProviderError({ message: "bad request", isRetryable: false }))).toEqual({ retry: false });
    expect(failed(new Error("the model request timed out"))).toEqual({ retry: false });
    expect(failed(new TypeError("something else"))).toEqual({ retry: false });
  });

  it("never asks again once any of the failed attempt reached the user", () => {
    expect(failed(httpError(503), 1, true)).toEqual({ retry: false });
  });

  it("waits as long as a Retry-After asks, when that is less than a minute", () => {
    expect(failed(httpError(429, { "retry-after": "7" }))).toMatchObject({ retry: true, delayMs: 7_000, reason: "HTTP 429" });
    expect(failed(httpError(429, { "Retry-After": "0" }))).toMatchObject({ delayMs: 0 });
    expect(failed(httpError(429, { "retry-after-ms": "250", "retry-after": "9" }))).toMatchObject({ delayMs: 250 });
    expect(failed(httpError(503, { "retry-after": new Date(12_000).toUTCString() }))).toMatchObject({ delayMs: 12_000 });
    // Too long, in the past or unreadable: the backoff's own wait.
    expect(failed(httpError(429, { "retry-after": "3600" }))).toMatchObject({ delayMs: 2_000 });
    expect(failed(httpError(429, { "retry-after": new Date(-5_000).toUTCString() }))).toMatchObject({ delayMs: 2_000 });
    expect(failed(httpError(429, { "retry-after": "soon" }), 2)).toMatchObject({ delayMs: 4_000 });
  });

  it("says why in a few words that hold nothing of the request, the endpoint or the key", () => {
    const verdict = failed(httpError(502, { "retry-after": "1" }));
    const said = JSON.stringify(verdict);
    for (const secret of ["secret", "prompt", "127.0.0.1", "10.0.0.1", "sk-"]) expect(said).not.toContain(secret);
  });

  it("follows a policy with fewer retries", () => {
    const once = { ...DEFAULT_RETRY_POLICY, maxRetries: 1 };
    expect(retryVerdict({ error: httpError(503), attempt: 1, streamed: false }, once)).toMatchObject({ attempt: 2, maxAttempts: 2 });
    expect(retryVerdict({ error: httpError(503), attempt: 2, streamed: false }, once)).toEqual({ retry: false });
    expect(retryVerdict({ error: httpError(503), attempt: 1, streamed: false }, { ...once, maxRetries: 0 })).toEqual({ retry: false });
  });
});
