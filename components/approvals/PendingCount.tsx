"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { cn } from "@/components/ui/cn";
import { useInboxFeed } from "./live";
import { isPause, needsViewer } from "./queue";

/**
 * How many requests wait on the viewer, live, for the navigation (`enabled` for approvers only).
 * The inbox keeps the same list live while it is open (`inInbox`), so the count follows it without
 * a second feed.
 */
export function usePendingCount({
  viewerId,
  viewerIsAdmin,
  enabled,
  inInbox,
}: {
  viewerId: string;
  viewerIsAdmin: boolean;
  enabled: boolean;
  inInbox: boolean;
}): number {
  const trpc = useTRPC();
  // The inbox's own query (same input), so both show the same requests.
  const pending = useQuery(trpc.interactions.list.queryOptions({ status: "pending" }, { enabled }));
  useInboxFeed(enabled && !inInbox);
  if (!enabled) return 0;
  return (pending.data ?? []).filter((i) => isPause(i) && i.status === "pending" && needsViewer(i, viewerId, viewerIsAdmin)).length;
}

/** The count as a small badge (nothing at zero). */
export function PendingBadge({ count, className }: { count: number; className?: string }) {
  if (count === 0) return null;
  return (
    <span
      className={cn(
        "min-w-5 rounded-full bg-primary px-1.5 text-center text-xs leading-5 font-semibold text-primary-foreground tabular-nums",
        className,
      )}
      data-testid="nav-pending-count"
    >
      {count > 99 ? "99+" : count}
      <span className="sr-only"> waiting for you</span>
    </span>
  );
}
