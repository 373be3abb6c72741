import type { PauseReason } from "@/server/domain";
import { Badge, type BadgeTone } from "@/components/ui/Badge";

/** Why a run paused: every pause carries one of the four reasons; people read them like this. */
export const REASON_LABELS: Record<PauseReason, string> = {
  hitl: "Approval",
  oauth: "OAuth consent",
  a2a: "Remote agent",
  operator: "Operator pause",
};

const REASON_TONES: Record<PauseReason, BadgeTone> = { hitl: "info", oauth: "violet", a2a: "teal", operator: "warning" };

export const PAUSE_REASON_LIST = Object.keys(REASON_LABELS) as PauseReason[];

export function ReasonBadge({ reason }: { reason: PauseReason }) {
  return (
    <Badge tone={REASON_TONES[reason]} data-testid="reason" data-reason={reason}>
      {REASON_LABELS[reason]}
    </Badge>
  );
}
