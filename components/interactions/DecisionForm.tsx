"use client";

import { useRef, useState } from "react";

/**
 * Approve or reject, with an optional reason. Arguments are never editable: a change needs a new
 * request. One decision per form: the buttons lock on the first click (a double click decides
 * once) and stay locked once it was sent; only a failure unlocks them.
 */
export function DecisionForm({
  busy,
  disabledReason,
  onDecide,
}: {
  busy: boolean;
  /** Why this viewer cannot decide (shown instead of the buttons). */
  disabledReason?: string;
  /** Sends the decision; a rejected promise means it was not taken, and the form unlocks. */
  onDecide(approved: boolean, reason?: string): void | Promise<unknown>;
}) {
  const [reason, setReason] = useState("");
  const [phase, setPhase] = useState<"open" | "sending" | "sent">("open");
  // The state above renders the lock; this stops a second click that arrives before React re-renders.
  const locked = useRef(false);
  if (disabledReason) return <p className="muted small decision-note">{disabledReason}</p>;
  const decide = async (approved: boolean) => {
    if (locked.current || busy) return;
    locked.current = true;
    setPhase("sending");
    try {
      await onDecide(approved, reason.trim() || undefined);
      setPhase("sent");
    } catch {
      // The caller shows why; the form is open again for another try.
      locked.current = false;
      setPhase("open");
    }
  };
  const disabled = busy || phase !== "open";
  return (
    <div className="decision">
      <input
        className="reason"
        aria-label="Reason (optional)"
        placeholder="Reason (optional)"
        value={reason}
        maxLength={500}
        onChange={(e) => setReason(e.target.value)}
        disabled={disabled}
      />
      <div className="decision-buttons">
        <button type="button" className="button danger-outline" onClick={() => void decide(false)} disabled={disabled}>
          Reject
        </button>
        <button type="button" className="button primary" onClick={() => void decide(true)} disabled={disabled}>
          {busy || phase === "sending" ? "Sending…" : phase === "sent" ? "Sent" : "Approve"}
        </button>
      </div>
    </div>
  );
}
