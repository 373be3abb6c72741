"use client";

import { useState } from "react";

/** Approve or reject, with an optional reason. Arguments are never editable: a change needs a new request. */
export function DecisionForm({
  busy,
  disabledReason,
  onDecide,
}: {
  busy: boolean;
  /** Why this viewer cannot decide (shown instead of the buttons). */
  disabledReason?: string;
  onDecide(approved: boolean, reason?: string): void;
}) {
  const [reason, setReason] = useState("");
  if (disabledReason) return <p className="muted small decision-note">{disabledReason}</p>;
  const decide = (approved: boolean) => onDecide(approved, reason.trim() || undefined);
  return (
    <div className="decision">
      <input
        className="reason"
        aria-label="Reason (optional)"
        placeholder="Reason (optional)"
        value={reason}
        maxLength={500}
        onChange={(e) => setReason(e.target.value)}
        disabled={busy}
      />
      <div className="decision-buttons">
        <button type="button" className="button danger-outline" onClick={() => decide(false)} disabled={busy}>
          Reject
        </button>
        <button type="button" className="button primary" onClick={() => decide(true)} disabled={busy}>
          {busy ? "Sending…" : "Approve"}
        </button>
      </div>
    </div>
  );
}
