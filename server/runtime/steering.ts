/**
 * Steering: the nine instructions on live runs, one closed set. Instructions for a run this
 * process is executing wait in its mailbox and are honored at the run loop's next safe point
 * (before each planner step and before each tool runs); a parked run is steered through the
 * coordinator (resume, decide, cancel) — the same functions the inbox and the chat use.
 */
import { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "./text";

const text = (max: number) => z.string().trim().min(1).max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

/** The nine instructions, discriminated by `type`. Anything else is refused. */
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

/** What an owner may send to their own run; admins may send all nine; approvers decide gates. */
export const OWNER_INSTRUCTIONS: ReadonlySet<SteeringType> = new Set(["USER_MESSAGE", "CANCEL"]);

/** Instructions the loop applies at a safe point. */
export type MailboxInstruction = Extract<
  SteeringInstruction,
  { type: "INJECT_CONTEXT" | "REDIRECT" | "USER_MESSAGE" | "CANCEL" | "PAUSE" | "PRIORITIZE" }
>;

export interface QueuedInstruction {
  instruction: MailboxInstruction;
  actorId: string;
}

/** Per-run queues of instructions waiting for their run's next safe point. */
export class Mailboxes {
  private readonly boxes = new Map<string, QueuedInstruction[]>();

  post(runId: string, queued: QueuedInstruction): void {
    const box = this.boxes.get(runId);
    if (box) box.push(queued);
    else this.boxes.set(runId, [queued]);
  }

  /** Everything waiting for the run, oldest first; the box is emptied. */
  take(runId: string): QueuedInstruction[] {
    const box = this.boxes.get(runId) ?? [];
    this.boxes.delete(runId);
    return box;
  }

  drop(runId: string): void {
    this.boxes.delete(runId);
  }
}
