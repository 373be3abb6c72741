"use client";

import { WifiOffIcon } from "lucide-react";

/**
 * Said while Harbor cannot be reached: what is shown stays, and the page catches up by itself once
 * the server answers again.
 */
export function OfflineBanner({ offline }: { offline: boolean }) {
  if (!offline) return null;
  return (
    <div
      className="mx-auto mb-2 flex w-full max-w-3xl items-start gap-2.5 rounded-xl border border-warning-border bg-warning-bg px-4 py-3 text-sm text-warning-fg"
      role="status"
      data-testid="offline-banner"
    >
      <WifiOffIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <p>
        <strong className="font-semibold">Offline: Harbor cannot be reached.</strong> Reconnecting… What arrived so far stays here, and the
        reply catches up as soon as the server is back.
      </p>
    </div>
  );
}
