import type { InteractionView } from "@/components/trpc/types";
import { Badge, type BadgeTone } from "@/components/ui/Badge";
import type { CardTone } from "./InteractionCard";

type Status = InteractionView["status"];
type Kind = InteractionView["kind"];

const LABELS: Record<Status, string> = {
  pending: "Waiting for approval",
  resolved: "Approved",
  rejected: "Rejected",
  cancelled: "Cancelled",
  expired: "Expired",
  lost: "Lost",
};

/** What "waiting" and "done" mean for each kind of request; an approval's words are the default. */
const BY_KIND: Partial<Record<Kind, Partial<Record<Status, string>>>> = {
  private_input: { pending: "Waiting for you", resolved: "Sent" },
  oauth: { pending: "Waiting to connect", resolved: "Connected" },
  a2a: { pending: "Waiting for your answer", resolved: "Answered" },
  mcp_input: { pending: "Waiting for you", resolved: "Answered" },
  operator: { pending: "Paused", resolved: "Resumed" },
};

const TONES: Record<Status, BadgeTone> = {
  pending: "warning",
  resolved: "success",
  rejected: "danger",
  cancelled: "neutral",
  expired: "neutral",
  lost: "danger",
};

export function StatusBadge({ status, kind, pendingLabel }: { status: Status | undefined; kind?: Kind; pendingLabel?: string }) {
  const label = status === "pending" && pendingLabel ? pendingLabel : status ? ((kind && BY_KIND[kind]?.[status]) ?? LABELS[status]) : "…";
  return (
    <Badge tone={status ? TONES[status] : "neutral"} data-status={status ?? "loading"}>
      {status === "pending" ? <span className="size-1.5 animate-pulse-soft rounded-full bg-current" aria-hidden="true" /> : null}
      {label}
    </Badge>
  );
}

/** The card's accent: waiting, approved, or closed without the action. */
export function toneOf(status: Status | undefined): CardTone {
  if (!status || status === "pending") return "pending";
  return status === "resolved" ? "approved" : "closed";
}
