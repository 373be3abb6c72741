"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { refreshNow } from "@/components/trpc/refresh";

/** Changes that arrive this close together are asked for once. */
const GATHER_MS = 60;

/**
 * Keeps the console's run list and scheduler line current from the server's live feed of run
 * changes: the list is asked again as soon as a run it may show changes (started, queued, paused,
 * answered, steered, ended), and once more when the feed (re)connects, so nothing missed while it
 * was down stays stale. Returns whether the feed is live; while it is not, the caller polls.
 */
export function useLiveRunList(): boolean {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Made once: a burst of changes (a run's pause and its parking) asks for the list once.
  const [gather] = useState(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return {
      refresh: () => {
        timer ??= setTimeout(() => {
          timer = undefined;
          void refreshNow(queryClient, trpc.runs.list.queryKey());
          void refreshNow(queryClient, trpc.runs.queue.queryKey());
        }, GATHER_MS);
      },
      stop: () => clearTimeout(timer),
    };
  });
  useEffect(() => gather.stop, [gather]);
  const feed = useSubscription(trpc.runs.changes.subscriptionOptions(undefined, { onData: gather.refresh, onStarted: gather.refresh }));
  return feed.status === "pending";
}
