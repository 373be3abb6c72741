/**
 * A run's events (run_events.data), as read back: the snapshot's transcript rebuilt and its large
 * state put back (event-storage.ts) before the codec sees it. The version is written as `v`.
 */
import { z } from "zod";
import {
  BUDGET_PERIODS,
  BUDGET_SCOPES,
  ERROR_CODES,
  ESCALATION_GROUPS,
  EXPIRY_DEFAULTS,
  INTERACTION_KINDS,
  MESSAGE_ROLES,
  PAUSE_REASONS,
  RESOLVER_POLICIES,
  SteeringInstruction,
  type RunEvent,
  type TranscriptMessage,
} from "@/server/domain";
import { storedCodec } from "./codec";
import { interactionDetailSchema } from "./interaction-detail";

const STEERING_TYPES = SteeringInstruction.options.map((o) => o.shape.type.value);

const json = z.record(z.string(), z.unknown());
const usage = z.looseObject({ inputTokens: z.number(), outputTokens: z.number() });

export const storedToolCallSchema = z.looseObject({ id: z.string(), name: z.string(), args: json, modelId: z.string().optional() });

const transcriptMessage = z.looseObject({
  id: z.string(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  toolCalls: z.array(storedToolCallSchema).optional(),
  toolCallId: z.string().optional(),
}) satisfies z.ZodType<TranscriptMessage>;

const interrupt = z.looseObject({
  id: z.string(),
  runId: z.string(),
  kind: z.enum(INTERACTION_KINDS),
  reason: z.enum(PAUSE_REASONS).nullable(),
  policy: z.enum(RESOLVER_POLICIES),
  message: z.string(),
  expiresAt: z.number(),
  resumeToken: z.string(),
  responseSchema: json.optional(),
  toolCallId: z.string().optional(),
  tool: z.looseObject({ name: z.string(), args: json }).optional(),
  detail: interactionDetailSchema.optional(),
  quorum: z.number().optional(),
  deadline: z
    .looseObject({
      remindAt: z.number().optional(),
      escalateAt: z.number().optional(),
      escalateTo: z.enum(ESCALATION_GROUPS).optional(),
      onExpiry: z.enum(EXPIRY_DEFAULTS),
    })
    .optional(),
});

const event = <T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) => z.looseObject({ type: z.literal(type), ...shape });

const runEventSchema = z.discriminatedUnion("type", [
  event("run.started", { runId: z.string(), threadId: z.string(), agentId: z.string(), resumed: z.boolean().optional() }),
  event("text.started", { messageId: z.string() }),
  event("text.delta", { messageId: z.string(), delta: z.string() }),
  event("text.ended", { messageId: z.string(), interrupted: z.boolean().optional() }),
  event("tool.call", { messageId: z.string(), toolCallId: z.string(), name: z.string(), args: json }),
  event("tool.result", { messageId: z.string(), toolCallId: z.string(), content: z.string() }),
  event("tool.progress", { toolCallId: z.string(), progress: z.number(), total: z.number().optional(), message: z.string().optional() }),
  interrupt.extend({ type: z.literal("pause.requested") }),
  event("client_tool.requested", { requestId: z.string(), toolCallId: z.string(), toolName: z.string() }),
  event("external_wait.started", { responseId: z.string(), toolCallId: z.string() }),
  event("pause.reminder", { pauseId: z.string(), expiresAt: z.number() }),
  event("pause.escalated", { pauseId: z.string(), to: z.enum(ESCALATION_GROUPS), expiresAt: z.number() }),
  event("grant.used", { grantId: z.string(), toolCallId: z.string(), toolName: z.string(), grantedBy: z.string() }),
  event("model.retrying", { attempt: z.number(), maxAttempts: z.number(), delayMs: z.number(), reason: z.string() }),
  event("budget.warning", { scope: z.enum(BUDGET_SCOPES), period: z.enum(BUDGET_PERIODS), used: z.number(), limit: z.number() }),
  event("pause.resumed", {
    pauseId: z.string(),
    runId: z.string(),
    decision: z.enum(["approved", "rejected", "cancelled", "resolved"]),
    actorId: z.string(),
  }),
  event("steer.applied", { instruction: z.enum(STEERING_TYPES), actorId: z.string(), detail: z.string().optional() }),
  event("children.started", { runIds: z.array(z.string()) }),
  event("snapshot", { state: json, messages: z.array(transcriptMessage) }),
  event("run.paused", { interrupts: z.array(interrupt), usage: usage.optional() }),
  event("run.queued", { position: z.number() }),
  event("run.handed_off", { from: z.string() }),
  event("run.cancelled", { by: z.enum(["owner", "operator", "system"]) }),
  event("run.completed", { status: z.enum(["rejected", "cancelled"]).optional(), usage: usage.optional() }),
  event("run.failed", { code: z.enum(ERROR_CODES), message: z.string() }),
]);

export const runEventCodec = storedCodec<RunEvent>({
  shape: "run event",
  version: 1,
  schema: runEventSchema,
  upcasters: {},
  versionKey: "v",
});
