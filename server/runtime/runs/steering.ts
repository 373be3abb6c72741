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

/** How many instructions may wait for one run (more get TOO_MANY_INSTRUCTIONS). */
export const MAILBOX_CAPACITY = 20;

/** Per-run queues of instructions waiting for their run's next safe point, each bounded. */
export class Mailboxes {
  private readonly boxes = new Map<string, QueuedInstruction[]>();
  /** Runs executing here that wait on something slow (a model's answer): a cancel aborts it. */
  private readonly cancellers = new Map<string, AbortController>();

  /** False when the run's box is full (`force`: a cancel always gets in). */
  post(runId: string, queued: QueuedInstruction, options: { force?: boolean } = {}): boolean {
    const box = this.boxes.get(runId) ?? [];
    if (box.length >= MAILBOX_CAPACITY && !options.force) return false;
    box.push(queued);
    this.boxes.set(runId, box);
    if (queued.instruction.type === "CANCEL") this.cancellers.get(runId)?.abort();
    return true;
  }

  /**
   * A signal that aborts when a CANCEL is posted for the run, so the run stops waiting at once;
   * the cancel itself is still applied at the next safe point. Forgotten at `drop`.
   */
  cancelSignal(runId: string): AbortSignal {
    let controller = this.cancellers.get(runId);
    // A cancel already applied (the run went on after it was answered) does not abort anew.
    if (!controller || controller.signal.aborted) {
      controller = new AbortController();
      this.cancellers.set(runId, controller);
    }
    if (this.boxes.get(runId)?.some((q) => q.instruction.type === "CANCEL")) controller.abort();
    return controller.signal;
  }

  /** Everything waiting for the run, oldest first; the box is emptied. */
  take(runId: string): QueuedInstruction[] {
    const box = this.boxes.get(runId) ?? [];
    this.boxes.delete(runId);
    return box;
  }

  drop(runId: string): void {
    this.boxes.delete(runId);
    this.cancellers.delete(runId);
  }
}
