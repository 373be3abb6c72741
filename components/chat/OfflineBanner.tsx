"use client";

import { WifiOffIcon } from "lucide-react";
import { WarningNotice } from "@/components/ui/Alert";

/**
 * Said while Harbor cannot be reached: what is shown stays, and the page catches up by itself once
 * the server answers again.
 */
export function OfflineBanner({ offline }: { offline: boolean }) {
  if (!offline) return null;
  return (
    <WarningNotice icon={WifiOffIcon} className="mx-auto mb-2 w-full max-w-3xl" data-testid="offline-banner">
      <strong className="font-semibold">Offline: Harbor cannot be reached.</strong> Reconnecting… What arrived so far stays here, and the
      reply catches up as soon as the server is back.
    </WarningNotice>
  );
}
