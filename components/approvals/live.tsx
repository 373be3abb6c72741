"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { RotateCwIcon } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { refreshNow } from "@/components/trpc/refresh";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";

/** Whether the inbox's feed is live: connecting the first time, live, reconnecting after a drop, or stopped. */
export type FeedState = "connecting" | "live" | "reconnecting" | "stopped";

/**
 * The live feed of the caller's requests: every change, and every (re)connection, reloads the
 * request lists — what changed while the feed was down (a restart that lost requests) shows as
 * soon as it is back. `retry` starts a stopped feed again.
 */
export function useInboxFeed(enabled = true): { state: FeedState; retry(): void } {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reload = () => void refreshNow(queryClient, trpc.interactions.pathKey());
  // The first start needs no reload (the lists were just fetched); every later one does.
  const [started, setStarted] = useState(false);
  const feed = useSubscription(
    trpc.interactions.events.subscriptionOptions(undefined, {
      enabled,
      onStarted: () => {
        if (started) reload();
        setStarted(true);
      },
      onData: reload,
    }),
  );
  const state: FeedState =
    feed.status === "pending" ? "live" : feed.status === "error" ? "stopped" : started ? "reconnecting" : "connecting";
  return {
    state,
    retry: () => {
      feed.reset();
      reload();
    },
  };
}

const LABELS: Record<FeedState, string> = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", stopped: "Not live" };

/** "Live" only while the feed is: a pulsing dot; otherwise what it is doing, and Retry once it gave up. */
export function LiveStatus({ state, onRetry }: { state: FeedState; onRetry(): void }) {
  return (
    <span className="flex items-center gap-1.5">
      <span
        className={cn(
          "flex items-center gap-1.5 text-xs",
          state === "live" ? "text-success-fg" : state === "connecting" ? "text-muted-foreground" : "text-warning-fg",
        )}
        role="status"
        title="Updates arrive as they happen"
        data-testid="live-status"
        data-state={state}
      >
        <span
          className={cn(
            "size-2 rounded-full",
            state === "live" ? "animate-pulse-soft bg-success-fg" : state === "connecting" ? "bg-muted-foreground" : "bg-warning-fg",
          )}
          aria-hidden="true"
        />
        {LABELS[state]}
      </span>
      {state === "stopped" ? (
        <Button size="sm" variant="ghost" className="h-6 px-2 text-xs" onClick={onRetry}>
          <RotateCwIcon aria-hidden="true" />
          Retry
        </Button>
      ) : null}
    </span>
  );
}
