import type { PauseReason } from "@/server/domain";

/** Why a run paused: every pause carries one of the four reasons; people read them like this. */
export const REASON_LABELS: Record<PauseReason, string> = {
  hitl: "Approval",
  oauth: "OAuth consent",
  a2a: "Remote agent",
  operator: "Operator pause",
};

export const PAUSE_REASON_LIST = Object.keys(REASON_LABELS) as PauseReason[];

export function ReasonBadge({ reason }: { reason: PauseReason }) {
  return (
    <span className={`reason reason-${reason}`} data-testid="reason" data-reason={reason}>
      {REASON_LABELS[reason]}
    </span>
  );
}
