/**
 * One attempt at one delivery: the message signed with its webhook's secret and POSTed, and the
 * outcome recorded in the statement that releases the row's lease. A 2xx delivers; anything else is
 * retried after the next wait of the schedule (with ±20 % jitter) until the schedule is used up,
 * then the delivery is `failed`. What cannot succeed on any attempt is `failed` at once.
 */
import { telemetry, webhookSpan, type Span } from "@/server/telemetry";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { recordAttempt, type ClaimedDelivery } from "@/server/db/queries/webhooks";
import { post } from "./webhook-post";
import { checkWebhookUrl, openSecret, signWebhook } from "./webhooks";

/** The most of an error's text kept in the delivery log. */
const MAX_ERROR_CHARS = 500;

/** What an attempt needs, fixed for the worker's life. */
export interface AttemptContext {
  db: Database;
  log: Logger;
  instanceId: string;
  /** Opens the webhooks' sealed secrets (see `webhookSecretKey`). */
  key: Buffer;
  timeoutMs: number;
  retrySchedule: readonly number[];
  allowLocal: boolean;
  prepare?(payload: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** The wait before the next attempt after failed attempt `attempt`, or undefined when it was the last. */
function retryIn(retrySchedule: readonly number[], attempt: number): number | undefined {
  const base = retrySchedule[attempt - 1];
  return base === undefined ? undefined : Math.round(base * (0.8 + Math.random() * 0.4));
}

export function attemptDelivery(ctx: AttemptContext, delivery: ClaimedDelivery): Promise<void> {
  const attributes = {
    "harbor.webhook.id": delivery.webhookId,
    "harbor.webhook.delivery.id": delivery.id,
    "harbor.webhook.attempt": delivery.attempt,
  };
  return webhookSpan(attributes, (span) => attempt(ctx, delivery, span));
}

async function attempt(ctx: AttemptContext, delivery: ClaimedDelivery, span: Span): Promise<void> {
  const log = ctx.log.child({ deliveryId: delivery.id, webhookId: delivery.webhookId, attempt: delivery.attempt });
  let body: string;
  const timestamp = Math.floor(Date.now() / 1000);
  const started = Date.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let refused = false;
  try {
    const url = checkWebhookUrl(delivery.url, ctx.allowLocal);
    const secret = openSecret(ctx.key, delivery.secretSealed, delivery.webhookId);
    // A payload this release cannot read (STATE_UNREADABLE) is never sent, nor retried.
    const payload = delivery.readPayload();
    body = JSON.stringify(payload);
    try {
      // What is added when it is sent (decision links) is never stored with the message.
      if (ctx.prepare) body = JSON.stringify(await ctx.prepare(payload));
      const headers = {
        "content-type": "application/json",
        "user-agent": "Harbor-Webhooks/1",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signWebhook(secret, delivery.id, timestamp, body),
      };
      statusCode = await post(url, headers, body, ctx.timeoutMs, ctx.allowLocal);
      if (statusCode < 200 || statusCode >= 300) error = `answered HTTP ${statusCode}`;
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
  } catch (thrown) {
    // The URL is no longer allowed (settings changed), the secret does not open, or the payload
    // cannot be read: retrying cannot help.
    refused = true;
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  const wait = error === null || refused ? undefined : retryIn(ctx.retrySchedule, delivery.attempt);
  const status = error === null ? "delivered" : wait === undefined ? "failed" : "pending";
  const recorded = await recordAttempt(ctx.db, {
    deliveryId: delivery.id,
    owner: ctx.instanceId,
    attempt: delivery.attempt,
    statusCode,
    error: error?.slice(0, MAX_ERROR_CHARS) ?? null,
    durationMs: Date.now() - started,
    status,
    retryInMs: wait,
  });
  span.setAttributes({ "harbor.webhook.outcome": status, ...(statusCode !== null ? { "http.response.status_code": statusCode } : {}) });
  telemetry.webhookAttempt(status === "delivered" ? "delivered" : status === "failed" ? "failed" : "retry");
  if (!recorded) log.warn("a webhook delivery's lease ran out before its attempt was recorded");
  else if (status === "failed") log.warn({ error }, "webhook delivery given up");
  else if (status === "pending") log.info({ error, retryInMs: wait }, "webhook delivery will be retried");
}
