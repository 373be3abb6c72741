"use client";

import { RotateCcwIcon } from "lucide-react";
import type { InteractionView } from "@/components/trpc/types";
import { Button } from "@/components/ui/Button";

/** Whether a request can no longer be answered by anyone: it expired, or was lost when Harbor restarted. */
export const isDead = (status: InteractionView["status"] | undefined) => status === "expired" || status === "lost";

/**
 * Retry on a request nobody can answer any more: the conversation's work starts again from the
 * user's words and asks afresh (a new card). Offered only where the conversation ended on it.
 */
export function RetryRequest({ onRetry, busy }: { onRetry(): void; busy: boolean }) {
  return (
    <div>
      <Button variant="secondary" onClick={onRetry} disabled={busy} data-testid="retry-request">
        <RotateCcwIcon aria-hidden="true" />
        Retry
      </Button>
    </div>
  );
}
