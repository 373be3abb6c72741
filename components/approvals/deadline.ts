import type { InteractionView } from "@/components/trpc/types";

type Deadline = InteractionView["deadline"];

const GROUP: Record<NonNullable<Deadline["escalateTo"]>, string> = { approvers: "approvers", admins: "admins" };
const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { timeStyle: "short" });

/** Whether the gate was escalated to a group the viewer belongs to (then it is theirs to decide too). */
export function escalatedToViewer(deadline: Deadline, viewerIsAdmin: boolean): boolean {
  if (!deadline.escalatedAt || !deadline.escalateTo) return false;
  return deadline.escalateTo === "approvers" || viewerIsAdmin;
}

/** A short flag for the list: escalated, or reminded (due soon). */
export function deadlineFlag(i: Pick<InteractionView, "status" | "deadline">): string | null {
  if (i.status !== "pending") return null;
  if (i.deadline.escalatedAt && i.deadline.escalateTo) return `Escalated to ${GROUP[i.deadline.escalateTo]}`;
  if (i.deadline.remindedAt) return "Due soon";
  return null;
}

/** What the deadline does and did, in the order it happens, one line each. */
export function deadlineSteps(deadline: Deadline): string[] {
  const steps: string[] = [];
  if (deadline.escalateTo && deadline.escalateAt) {
    steps.push(
      deadline.escalatedAt
        ? `Escalated to the ${GROUP[deadline.escalateTo]} at ${time(deadline.escalatedAt)}`
        : `Escalates to the ${GROUP[deadline.escalateTo]} at ${time(deadline.escalateAt)} if nobody decides`,
    );
  }
  if (deadline.remindAt) {
    steps.push(deadline.remindedAt ? `Reminder sent at ${time(deadline.remindedAt)}` : `Reminder at ${time(deadline.remindAt)}`);
  }
  steps.push(deadline.onExpiry === "cancel" ? "On expiry the run is cancelled" : "On expiry it is rejected: the action never runs");
  return steps;
}
