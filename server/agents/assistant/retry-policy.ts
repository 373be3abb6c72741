/**
 * When a failed model request is asked again, and after how long. The AI SDK's `streamText` would
 * retry without a word to anyone; the planner makes single calls (`streamLanguageModelCall`, which
 * never retries) and retries itself, so each wait is a run event the user sees. The budget is the SDK's own: two
 * retries, 2 s then 4 s, a server's `Retry-After` (or `retry-after-ms`) honoured when it asks for
 * less than a minute.
 */
import { APICallError, StreamProviderError } from "ai";

export interface RetryPolicy {
  /** Requests after the first one (the SDK's `maxRetries`). */
  maxRetries: number;
  /** The wait before the first retry; each later one waits `backoffFactor` times longer. */
  initialDelayMs: number;
  backoffFactor: number;
  /** A `Retry-After` asking for this long or more is not waited for: the backoff's wait is used. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, initialDelayMs: 2_000, backoffFactor: 2, maxRetryAfterMs: 60_000 };

/** What a failed attempt leads to: give up, or wait `delayMs` and try attempt `attempt` of `maxAttempts`. */
export type RetryVerdict =
  | { retry: false }
  | {
      retry: true;
      /** The attempt about to be made (2 for the first retry). */
      attempt: number;
      maxAttempts: number;
      delayMs: number;
      /** Why, without anything secret or private: "HTTP 503", "no connection". */
      reason: string;
    };

export interface FailedAttempt {
  error: unknown;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Whether anything of it reached the user (text, a tool call): then it is never asked again. */
  streamed: boolean;
  /** Milliseconds since the epoch, for a `Retry-After` given as a date. */
  now?: number;
}

export function retryVerdict(failed: FailedAttempt, policy: RetryPolicy = DEFAULT_RETRY_POLICY): RetryVerdict {
  const { error, attempt, streamed } = failed;
  if (streamed || attempt > policy.maxRetries || !retryable(error)) return { retry: false };
  const backoff = policy.initialDelayMs * policy.backoffFactor ** (attempt - 1);
  const asked = retryAfterMs(error, failed.now ?? Date.now());
  const delayMs = asked !== undefined && asked < Math.max(policy.maxRetryAfterMs, backoff) ? asked : backoff;
  return { retry: true, attempt: attempt + 1, maxAttempts: policy.maxRetries + 1, delayMs: Math.round(delayMs), reason: reasonOf(error) };
}

/** What the provider says may succeed if asked again: 408, 409, 429, 5xx, a lost connection, an overloaded stream. */
function retryable(error: unknown): boolean {
  return (APICallError.isInstance(error) || StreamProviderError.isInstance(error)) && error.isRetryable;
}

/** The status alone: an error's message and body may quote the request (the prompt) or the endpoint. */
function reasonOf(error: unknown): string {
  const status = APICallError.isInstance(error) || StreamProviderError.isInstance(error) ? error.statusCode : undefined;
  if (status !== undefined) return `HTTP ${status}`;
  return StreamProviderError.isInstance(error) ? "provider error" : "no connection";
}

/** The wait a response asked for (`retry-after-ms`, else `retry-after` in seconds or as a date); undefined when none or unreadable. */
function retryAfterMs(error: unknown, now: number): number | undefined {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return undefined;
  const header = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const ms = Number.parseFloat(header("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = header("retry-after");
  if (!after) return undefined;
  const seconds = Number.parseFloat(after);
  const wait = Number.isFinite(seconds) ? seconds * 1_000 : Date.parse(after) - now;
  return Number.isFinite(wait) && wait >= 0 ? wait : undefined;
}
