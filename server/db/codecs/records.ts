/**
 * Free-form records whose keys are not Harbor's (a tool's arguments and what it wrote to the
 * outbox), and the job and webhook shapes around them. Their versions live in columns:
 * jobs.version, outbox.details_version, webhook_deliveries.payload_version.
 */
import { z } from "zod";
import { ERROR_CODES, WEBHOOK_EVENTS } from "@/server/domain";
import { storedCodec } from "./codec";

const record = z.record(z.string(), z.unknown());

/** A durable job: the tool's arguments, its progress, and how it ended. */
const jobSchema = z.object({
  args: record,
  progress: z.object({ step: z.number(), total: z.number(), label: z.string() }).nullable(),
  output: z.unknown(),
  error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }).nullable(),
});
export type StoredJob = z.output<typeof jobSchema>;
export const jobCodec = storedCodec<StoredJob>({ shape: "job", version: 1, schema: jobSchema, upcasters: {} });

/** What a tool call recorded in its owner's outbox. */
export const outboxDetailsCodec = storedCodec<Record<string, unknown>>({
  shape: "outbox record",
  version: 1,
  schema: record,
  upcasters: {},
});

/**
 * A webhook delivery's body (Standard Webhooks: `{ type, timestamp, data }`), as the outbox
 * trigger builds it (migration 0024): sent as stored, checked before it is.
 */
const webhookPayloadSchema = z.looseObject({
  type: z.enum(WEBHOOK_EVENTS),
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookPayload = z.output<typeof webhookPayloadSchema>;
export const webhookPayloadCodec = storedCodec<WebhookPayload>({
  shape: "webhook payload",
  version: 1,
  schema: webhookPayloadSchema,
  upcasters: {},
});
