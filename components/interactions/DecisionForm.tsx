"use client";

import { CheckIcon, InfoIcon, XIcon } from "lucide-react";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { Input } from "@/components/ui/Input";
import type { GrantChoice, GrantOffer } from "@/server/domain";
import { GrantPopover } from "./GrantPopover";

/**
 * Approve or reject, with an optional reason. Arguments are never editable: a change needs a new
 * request. One decision per form: the buttons lock on the first click (a double click decides
 * once) and stay locked once it was sent; only a failure unlocks them.
 */
export function DecisionForm({
  busy,
  disabledReason,
  grant,
  onDecide,
}: {
  busy: boolean;
  /** Why this viewer cannot decide (shown instead of the buttons). */
  disabledReason?: string;
  /** The standing approval the request offers ("Approve and allow…"), if any. */
  grant?: Pick<GrantOffer, "summary" | "caps">;
  /** Sends the decision; a rejected promise means it was not taken, and the form unlocks. */
  onDecide(approved: boolean, reason?: string, grant?: GrantChoice): void | Promise<unknown>;
}) {
  const [reason, setReason] = useState("");
  const [phase, setPhase] = useState<"open" | "sending" | "sent">("open");
  // The state above renders the lock; this stops a second click that arrives before React re-renders.
  const locked = useRef(false);
  if (disabledReason)
    return (
      <p className="flex items-start gap-2 rounded-lg bg-muted px-3 py-2 text-sm text-muted-foreground">
        <InfoIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        {disabledReason}
      </p>
    );
  const decide = async (approved: boolean, standing?: GrantChoice) => {
    if (locked.current || busy) return;
    locked.current = true;
    setPhase("sending");
    try {
      await onDecide(approved, reason.trim() || undefined, standing);
      setPhase("sent");
    } catch {
      // The caller shows why; the form is open again for another try.
      locked.current = false;
      setPhase("open");
    }
  };
  const disabled = busy || phase !== "open";
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-center">
      <Input
        aria-label="Reason (optional)"
        placeholder="Reason (optional)"
        value={reason}
        maxLength={500}
        onChange={(e) => setReason(e.target.value)}
        disabled={disabled}
        className="sm:min-w-56 sm:flex-1"
      />
      <div className="flex flex-wrap gap-2 sm:ml-auto">
        <Button variant="danger" className="flex-1 sm:flex-none" onClick={() => void decide(false)} disabled={disabled}>
          <XIcon aria-hidden="true" />
          Reject
        </Button>
        {grant ? <GrantPopover offer={grant} disabled={disabled} onApprove={(choice) => void decide(true, choice)} /> : null}
        <Button variant="primary" className="flex-1 sm:flex-none" onClick={() => void decide(true)} disabled={disabled}>
          <CheckIcon aria-hidden="true" />
          {busy || phase === "sending" ? "Sending…" : phase === "sent" ? "Sent" : "Approve"}
        </Button>
      </div>
    </div>
  );
}
