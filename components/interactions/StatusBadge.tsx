import type { InteractionView } from "@/server/runtime";

const LABELS: Record<InteractionView["status"], string> = {
  pending: "Waiting for approval",
  resolved: "Approved",
  rejected: "Rejected",
  cancelled: "Cancelled",
  expired: "Expired",
  lost: "Lost",
};

export function StatusBadge({ status, pendingLabel }: { status: InteractionView["status"] | undefined; pendingLabel?: string }) {
  const label = status === "pending" && pendingLabel ? pendingLabel : status ? LABELS[status] : "…";
  return <span className={`badge badge-${status ?? "loading"}`}>{label}</span>;
}

/** The card's accent: waiting, approved, or closed without the action. */
export function toneOf(status: InteractionView["status"] | undefined): "pending" | "approved" | "closed" {
  if (!status || status === "pending") return "pending";
  return status === "resolved" ? "approved" : "closed";
}
