import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * Refetches the queries under `queryKey` from requests sent now, because something changed.
 *
 * `invalidateQueries` alone is not enough: while a query's first fetch is still in flight (no
 * data yet), TanStack hands that fetch back instead of starting another, and its answer may have
 * been read before the change. A run that paused quickly then left its gate "loading" for good.
 * Cancelling first makes the refetch start after the change.
 */
export async function refreshNow(queryClient: QueryClient, queryKey: QueryKey): Promise<void> {
  await queryClient.cancelQueries({ queryKey });
  await queryClient.invalidateQueries({ queryKey });
}
