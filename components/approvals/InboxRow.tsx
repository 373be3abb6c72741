"use client";

import { AlarmClockIcon, AlertTriangleIcon, BanknoteIcon, TimerIcon } from "lucide-react";
import { useEffect, useState } from "react";
import { ReasonBadge } from "@/components/interactions/reasons";
import { StatusBadge } from "@/components/interactions/StatusBadge";
import { cn } from "@/components/ui/cn";
import { deadlineFlag } from "./deadline";
import { amountOf, approvalsOf, type Pause, vanished, when } from "./queue";

/**
 * One request in the inbox's list: what is asked (and how much, for a transfer), who asked and
 * when, how long it has left, and its votes. Its height does not change while it waits, so rows
 * never shift under the pointer.
 */
export function InboxRow({ interaction: i, current, onOpen }: { interaction: Pause; current: boolean; onOpen(): void }) {
  const amount = amountOf(i);
  const flag = deadlineFlag(i);
  return (
    <button
      type="button"
      className="grid w-full cursor-pointer gap-1.5 rounded-lg border border-transparent px-3 py-2.5 text-left transition-colors hover:bg-accent aria-[current=true]:border-border aria-[current=true]:bg-card aria-[current=true]:shadow-xs"
      aria-current={current}
      onClick={onOpen}
      data-testid="inbox-row"
      data-status={i.status}
      data-interaction-id={i.interactionId}
    >
      <span className="flex min-w-0 items-start justify-between gap-2">
        <strong className="line-clamp-2 min-w-0 text-sm font-medium [overflow-wrap:anywhere]">{i.message}</strong>
        {/* As wide as "Waiting for approval" whatever the status says: a decision that shortens the
            badge must not unwrap the title and shift the rows below. */}
        <span className="flex shrink-0 basis-40 justify-end">
          <StatusBadge status={i.status} kind={i.kind} />
        </span>
      </span>
      <span className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
        <ReasonBadge reason={i.pauseReason} />
        {amount ? (
          <span className="flex items-center gap-1 font-semibold text-foreground tabular-nums" data-testid="row-amount">
            <BanknoteIcon className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
            {amount}
          </span>
        ) : null}
        {i.status === "pending" ? <ExpiresIn until={i.expiresAt} /> : null}
        {flag ? (
          <span className="flex items-center gap-1 font-medium text-warning-fg" data-testid="row-deadline">
            <AlarmClockIcon className="size-3.5 shrink-0" aria-hidden="true" />
            {flag}
          </span>
        ) : null}
        {i.quorum > 1 && i.status === "pending" ? (
          <span className="font-medium text-foreground" data-testid="row-votes">
            {approvalsOf(i)} of {i.quorum} approvals
          </span>
        ) : null}
      </span>
      <span className="truncate text-xs text-muted-foreground">
        {i.requester.name ?? i.requester.email} · {when(i.createdAt)}
      </span>
      {vanished(i) ? (
        <span className="flex items-center gap-1 text-xs text-warning-fg" data-testid="vanished-note">
          <AlertTriangleIcon className="size-3.5 shrink-0" aria-hidden="true" />
          {i.status === "lost" ? "Lost when Harbor restarted — nobody can decide it now" : "Expired before anyone decided"}
        </span>
      ) : null}
    </button>
  );
}

/** "12 min left", to the minute (a list of ticking seconds would be noise); red in the last five minutes. */
function ExpiresIn({ until }: { until: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  const minutes = Math.ceil((Date.parse(until) - now) / 60_000);
  const text = minutes <= 0 ? "expiring" : minutes < 60 ? `${minutes} min left` : `${Math.floor(minutes / 60)} h ${minutes % 60} min left`;
  return (
    <time
      dateTime={until}
      title={`Expires ${new Date(until).toLocaleString()}`}
      className={cn("flex items-center gap-1 whitespace-nowrap tabular-nums", minutes <= 5 && "font-semibold text-destructive")}
      data-testid="row-expires"
    >
      <TimerIcon className="size-3.5 shrink-0" aria-hidden="true" />
      {text}
    </time>
  );
}
