import { Badge, type BadgeTone } from "@/components/ui/Badge";
import type { RunStatus } from "@/server/domain";

const TONES: Record<RunStatus, BadgeTone> = {
  queued: "neutral",
  running: "info",
  paused: "warning",
  completed: "success",
  failed: "danger",
  cancelled: "neutral",
  rejected: "danger",
  expired: "neutral",
  lost: "danger",
};

/** A run's status in the console: colour for the eye, the word for everyone. */
export function RunStatusBadge({ status, testId }: { status: RunStatus; testId?: string }) {
  return (
    <Badge tone={TONES[status]} data-testid={testId}>
      {status === "running" ? <span className="size-1.5 animate-pulse-soft rounded-full bg-current" aria-hidden="true" /> : null}
      {status}
    </Badge>
  );
}
