"use client";

import { CircleAlertIcon, CircleCheckIcon } from "lucide-react";
import type { ReactNode } from "react";
import { toast, Toaster as Sonner } from "sonner";

export type ToastTone = "success" | "error";

interface Toast {
  tone: ToastTone;
  title: string;
  detail?: string;
}

type ShowToast = (toast: Toast) => void;

const TOAST_MS = 6_000;
/** The header's height (h-14) and a small gap. */
const HEADER_CLEARANCE = "4rem";

/**
 * Short confirmations that something happened (sonner). They appear at the top, away from the
 * controls that caused them, so a toast never lands under the pointer; below the app's header, so
 * they never hide its navigation or pending count; and at the right on a wide screen, so they
 * leave a request's title readable (a phone's are full width). Screen readers hear them
 * through sonner's polite live region; at most three show at a time.
 */
export function Toaster({ children }: { children: ReactNode }) {
  return (
    <>
      {children}
      <Sonner
        position="top-right"
        offset={{ top: HEADER_CLEARANCE }}
        mobileOffset={{ top: HEADER_CLEARANCE }}
        theme="system"
        visibleToasts={3}
        closeButton
        duration={TOAST_MS}
        containerAriaLabel="Notifications"
        icons={{
          success: <CircleCheckIcon className="size-4 text-success-fg" aria-hidden="true" />,
          error: <CircleAlertIcon className="size-4 text-danger-fg" aria-hidden="true" />,
        }}
        toastOptions={{
          closeButtonAriaLabel: "Dismiss notification",
          classNames: {
            toast: "!rounded-xl !border-border !bg-card !text-foreground !shadow-lg",
            description: "!text-muted-foreground",
            closeButton: "!border-border !bg-card !text-muted-foreground",
          },
        }}
      />
    </>
  );
}

const show: ShowToast = ({ tone, title, detail }) => {
  const options = { testId: "toast", ...(detail ? { description: detail } : {}) };
  if (tone === "success") toast.success(title, options);
  else toast.error(title, options);
};

/** Shows a toast; the `Toaster` above renders it. */
export function useToast(): ShowToast {
  return show;
}
