/**
 * A parked run's checkpoint (runs.checkpoint) and the tool calls it holds. The checkpoint carries
 * its version as `version` (written since the first release, so it keeps that key); each pending
 * call carries its own as `v`, so a change to one call's shape upcasts only calls.
 */
import { z } from "zod";
import {
  CHECKPOINT_VERSION,
  SteeringInstruction,
  type Checkpoint,
  type MailboxInstruction,
  type PendingCall,
  type StoredInstruction,
} from "@/server/domain";
import { storedCodec } from "./codec";

const json = z.record(z.string(), z.unknown());

const decision = z.looseObject({
  approved: z.boolean(),
  by: z.string(),
  reason: z.string().optional(),
  status: z.enum(["resolved", "rejected", "cancelled"]),
  grantId: z.string().optional(),
});

const pendingCallSchema = z.looseObject({
  toolCallId: z.string(),
  name: z.string(),
  args: json,
  gate: z
    .looseObject({
      id: z.string(),
      binding: z.strictObject({ scheme: z.enum(["tool", "agent"]), digest: z.string() }).optional(),
      decision: decision.optional(),
    })
    .optional(),
  paused: z.looseObject({ on: z.string(), state: json, handleKeys: z.array(z.string()) }).optional(),
  browser: z.looseObject({ requestId: z.string() }).optional(),
  privateInput: z.looseObject({ requestId: z.string() }).optional(),
}) satisfies z.ZodType<PendingCall>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

export const pendingCallCodec = storedCodec<PendingCall>({
  shape: "pending call",
  version: 2,
  schema: pendingCallSchema,
  upcasters: {
    // 0.1.0 stored a gate's binding as a bare digest of the arguments, the tool's version and a
    // digest of every tool of the agent: version 2 names that scheme.
    1: (call) =>
      isRecord(call.gate) && typeof call.gate.binding === "string"
        ? { ...call, gate: { ...call.gate, binding: { scheme: "agent", digest: call.gate.binding } } }
        : call,
  },
  versionKey: "v",
});

const mailboxTypes = new Set<string>(["INJECT_CONTEXT", "REDIRECT", "USER_MESSAGE", "CANCEL", "PAUSE", "PRIORITIZE"]);
const mailboxInstruction = SteeringInstruction.refine(
  (i): i is MailboxInstruction => mailboxTypes.has(i.type),
  "not applied at a safe point",
);

const storedInstruction = z.looseObject({
  instruction: mailboxInstruction,
  actorId: z.string(),
  actorRole: z.enum(["owner", "operator", "system"]),
}) satisfies z.ZodType<StoredInstruction>;

const count = z.number().int().nonnegative();

// A checkpoint SQL began from nothing (steering or a deadline noted in a run that had none) has
// neither a step nor calls: it is a run before its first step.
const checkpointSchema = z.looseObject({
  step: count.default(0),
  calls: z
    .array(z.unknown())
    .default([])
    .transform((calls) => calls.map((call) => pendingCallCodec.decode(call))),
  answers: z.record(z.string(), z.looseObject({ status: z.string(), payload: json.optional() })).optional(),
  outcome: z.enum(["rejected", "cancelled"]).optional(),
  goal: z.string().optional(),
  context: z.array(z.string()).optional(),
  children: z.array(z.string()).optional(),
  usage: z.looseObject({ inputTokens: count, outputTokens: count }).optional(),
  logSeq: count.optional(),
  steering: z.array(storedInstruction).optional(),
  pendingInput: z.array(z.looseObject({ id: z.string(), role: z.literal("user"), content: z.string() })).optional(),
  handoff: z.looseObject({ from: z.string() }).optional(),
}) satisfies z.ZodType<Omit<Checkpoint, "version">>;

const codec = storedCodec<Omit<Checkpoint, "version">>({
  shape: "checkpoint",
  version: CHECKPOINT_VERSION,
  schema: checkpointSchema,
  upcasters: {},
  versionKey: "version",
});

export const checkpointCodec = {
  /** An empty checkpoint as stored, for statements that start one (a JSON text for a jsonb parameter). */
  emptyJson: JSON.stringify(codec.encode({ step: 0, calls: [] })),
  shape: codec.shape,
  version: codec.version,
  /** The checkpoint as stored: its version, and each call with its own. */
  encode: (checkpoint: Checkpoint) => ({ ...codec.encode(checkpoint), calls: checkpoint.calls.map((c) => pendingCallCodec.encode(c)) }),
  decode: (stored: unknown): Checkpoint => ({ ...codec.decode(stored), version: CHECKPOINT_VERSION }),
};
