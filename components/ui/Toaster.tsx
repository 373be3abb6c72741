"use client";

import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";

export type ToastTone = "success" | "error";

interface Toast {
  id: number;
  tone: ToastTone;
  title: string;
  detail?: string;
}

type ShowToast = (toast: Omit<Toast, "id">) => void;

const ToastContext = createContext<ShowToast | null>(null);

const TOAST_MS = 6_000;
let lastToastId = 0;

/**
 * Short confirmations that something happened. They appear at the top, away from the controls
 * that caused them, so a toast never lands under the pointer; screen readers hear them through a
 * polite live region.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback<ShowToast>((toast) => {
    const id = ++lastToastId;
    // At most three at a time: the oldest gives way.
    setToasts((all) => [...all.slice(-2), { ...toast, id }]);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <ol className="toaster" role="status" aria-live="polite" aria-label="Notifications">
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onDismiss={dismiss} />
        ))}
      </ol>
    </ToastContext.Provider>
  );
}

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss(id: number): void }) {
  useEffect(() => {
    const timer = setTimeout(() => onDismiss(toast.id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toast.id, onDismiss]);
  return (
    <li className={`toast ${toast.tone}`} data-testid="toast" data-tone={toast.tone}>
      <div>
        <strong>{toast.title}</strong>
        {toast.detail ? <div className="small">{toast.detail}</div> : null}
      </div>
      <button type="button" className="toast-close" aria-label="Dismiss notification" onClick={() => onDismiss(toast.id)}>
        ×
      </button>
    </li>
  );
}

/** Shows a toast; needs a `Toaster` above. */
export function useToast(): ShowToast {
  const show = useContext(ToastContext);
  if (!show) throw new Error("useToast needs a <Toaster> above it");
  return show;
}
