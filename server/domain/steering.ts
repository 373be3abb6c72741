/**
 * The nine steering instructions, one closed set, discriminated by `type`. Anything else is refused.
 */
import { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "./text";

const text = (max: number) => z.string().trim().min(1).max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

export const SteeringInstruction = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("INJECT_CONTEXT"), context: text(4000) }),
  z.strictObject({ type: z.literal("REDIRECT"), goal: text(2000) }),
  z.strictObject({ type: z.literal("CANCEL"), mode: z.enum(["cascade", "isolate"]).optional() }),
  z.strictObject({ type: z.literal("PRIORITIZE"), priority: z.number().int().min(-1000).max(1000) }),
  z.strictObject({ type: z.literal("PAUSE") }),
  z.strictObject({ type: z.literal("RESUME") }),
  z.strictObject({ type: z.literal("APPROVE"), interactionId: z.string().min(1).max(200).optional(), reason: text(500).optional() }),
  z.strictObject({ type: z.literal("REJECT"), interactionId: z.string().min(1).max(200).optional(), reason: text(500).optional() }),
  z.strictObject({ type: z.literal("USER_MESSAGE"), message: text(20_000) }),
]);

export type SteeringInstruction = z.infer<typeof SteeringInstruction>;
export type SteeringType = SteeringInstruction["type"];

/** Instructions the run loop applies at a safe point (the rest are decided at once). */
export type MailboxInstruction = Extract<
  SteeringInstruction,
  { type: "INJECT_CONTEXT" | "REDIRECT" | "USER_MESSAGE" | "CANCEL" | "PAUSE" | "PRIORITIZE" }
>;
