/**
 * Steering: the nine instructions on live runs, one closed set. Instructions for a run this
 * process is executing wait in its mailbox and are honored at the run loop's next safe point
 * (before each planner step and before each tool runs); a parked run is steered through the
 * coordinator (resume, decide, cancel) — the same functions the inbox and the chat use.
 */
import type { SteeringType, StoredInstruction } from "@/server/domain";

export { SteeringInstruction, type MailboxInstruction, type SteeringType } from "@/server/domain";

/** What an owner may send to their own run; admins may send all nine; approvers decide gates. */
export const OWNER_INSTRUCTIONS: ReadonlySet<SteeringType> = new Set(["USER_MESSAGE", "CANCEL"]);

export type QueuedInstruction = StoredInstruction;

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
