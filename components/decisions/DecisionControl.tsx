"use client";

import { CheckIcon, InfoIcon, XIcon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { Input } from "@/components/ui/Input";
import { GrantPopover } from "@/components/interactions/GrantPopover";
import type { GrantChoice, GrantOffer } from "@/server/domain";
import { CONFIRM_WORD, confirms, LARGE_TRANSFER_THRESHOLD } from "./confirmation";

export interface Ask {
  approved: boolean;
  /** Changes with every key press, so the same key asks again. */
  n: number;
}

/** How long a control that replaced the one just used ignores clicks: the second click of a double click lands here. */
export const SETTLE_MS = 1_000;

export interface DecisionControlProps {
  busy: boolean;
  /** Why this viewer cannot decide (shown instead of the buttons). */
  disabledReason?: string;
  /** The transfer's amount when it is at or above the threshold (see `largeTransferAmount`). */
  large: { amount: number; currency: string } | null;
  /** What is being decided, in a few words (for the confirmation). */
  summary: string;
  /** A keyboard shortcut's ask (the inbox's a/r): it always opens a confirmation first. */
  ask?: Ask | null;
  /** The standing approval the request offers ("Approve and allow…"), if any. */
  grant?: Pick<GrantOffer, "summary" | "caps">;
  /** A decision link decides one way only: the other button is not offered. */
  only?: "approve" | "reject";
  /** What the buttons decide, when not a plain request ("gate": "Approve gate"). */
  noun?: string;
  /** This control replaced the one just used (the inbox moved on): ignore clicks for a moment. */
  settle?: boolean;
  /** Sends the decision; a rejected promise means it was not taken, and the control unlocks. */
  onDecide(approved: boolean, reason?: string, grant?: GrantChoice): void | Promise<unknown>;
}

/**
 * The one way a gate is decided — in the inbox, the chat's card, the console and a decision link:
 * approve or reject with an optional reason, never an edit (a changed call needs a new request).
 * A click decides at once, except the approval of a large transfer, which is confirmed by typing
 * its amount (or "approve"). A keyboard shortcut always opens a confirmation first: Enter
 * confirms, Escape cancels. One decision per control: it locks on the first one (a double click
 * decides once) and stays locked once sent; only a failure unlocks it.
 */
export function DecisionControl({
  busy,
  disabledReason,
  large,
  summary,
  ask,
  grant,
  only,
  noun,
  settle = false,
  onDecide,
}: DecisionControlProps) {
  const [reason, setReason] = useState("");
  const [phase, setPhase] = useState<"open" | "sending" | "sent">("open");
  const [confirming, setConfirming] = useState<boolean | null>(null);
  const [typed, setTyped] = useState("");
  // The state above renders the lock; this stops a second click that arrives before React re-renders.
  const locked = useRef(false);
  const [mountedAt] = useState(() => Date.now());
  const confirmButton = useRef<HTMLButtonElement>(null);
  const typedInput = useRef<HTMLInputElement>(null);

  // A shortcut asks for a confirmation of that decision.
  const [lastAsk, setLastAsk] = useState<number | null>(null);
  if (ask && ask.n !== lastAsk && !disabledReason && phase === "open") {
    setLastAsk(ask.n);
    if (!only || only === (ask.approved ? "approve" : "reject")) {
      setConfirming(ask.approved);
      setTyped("");
    }
  }
  const needsTyping = confirming === true && large !== null;
  useEffect(() => {
    if (confirming === null) return;
    (needsTyping ? typedInput.current : confirmButton.current)?.focus();
  }, [confirming, needsTyping]);
  // Escape cancels wherever focus is: a popover that just closed may hand focus back to its trigger
  // after the confirmation took it.
  const open = confirming !== null;
  useEffect(() => {
    if (!open) return;
    const cancel = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      setConfirming(null);
    };
    window.addEventListener("keydown", cancel);
    return () => window.removeEventListener("keydown", cancel);
  }, [open]);

  if (disabledReason)
    return (
      <p className="flex items-start gap-2 rounded-lg bg-muted px-3 py-2 text-sm text-muted-foreground">
        <InfoIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        {disabledReason}
      </p>
    );

  const settling = () => settle && Date.now() - mountedAt < SETTLE_MS;
  const decide = async (approved: boolean, standing?: GrantChoice) => {
    if (locked.current || busy) return;
    locked.current = true;
    setPhase("sending");
    setConfirming(null);
    try {
      await onDecide(approved, reason.trim() || undefined, standing);
      setPhase("sent");
    } catch {
      // The caller shows why; the control is open again for another try.
      locked.current = false;
      setPhase("open");
    }
  };
  const click = (approved: boolean) => {
    if (settling()) return;
    if (approved && large) {
      setConfirming(true);
      setTyped("");
    } else void decide(approved);
  };
  const disabled = busy || phase !== "open";
  const typedOk = !needsTyping || (large !== null && confirms(typed, large.amount));
  const label = (verb: string) => (noun ? `${verb} ${noun}` : verb);
  const sending = busy || phase === "sending";

  return (
    <div className="grid gap-3" data-testid="decision-control">
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
          {only === "approve" ? null : (
            <Button variant="danger" className="flex-1 sm:flex-none" onClick={() => click(false)} disabled={disabled}>
              <XIcon aria-hidden="true" />
              {only === "reject" && sending ? "Sending…" : only === "reject" && phase === "sent" ? "Sent" : label("Reject")}
            </Button>
          )}
          {/* A standing approval is only offered below the large-transfer threshold (no typed confirmation to skip). */}
          {grant && !large && only !== "reject" ? (
            <GrantPopover
              offer={grant}
              disabled={disabled}
              onApprove={(choice) => {
                if (!settling()) void decide(true, choice);
              }}
            />
          ) : null}
          {only === "reject" ? null : (
            <Button variant="primary" className="flex-1 sm:flex-none" onClick={() => click(true)} disabled={disabled}>
              <CheckIcon aria-hidden="true" />
              {sending ? "Sending…" : phase === "sent" ? "Sent" : label("Approve")}
            </Button>
          )}
        </div>
      </div>
      {confirming !== null && phase === "open" ? (
        <form
          role="group"
          aria-label={confirming ? "Confirm approval" : "Confirm rejection"}
          className="grid gap-2 rounded-lg border border-warning-border bg-warning-bg p-3 text-sm text-warning-fg"
          data-testid="decision-confirm"
          onSubmit={(e) => {
            e.preventDefault();
            if (typedOk) void decide(confirming);
          }}
        >
          <p className="font-medium [overflow-wrap:anywhere]">
            {confirming ? "Approve" : "Reject"} “{summary}”?
          </p>
          {needsTyping && large ? (
            <label className="grid gap-1">
              <span>
                This transfer is {large.amount.toLocaleString("en-US")} {large.currency} — at or above{" "}
                {LARGE_TRANSFER_THRESHOLD.toLocaleString("en-US")}. Type the amount or “{CONFIRM_WORD}” to confirm.
              </span>
              <Input
                ref={typedInput}
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
                aria-label="Type the amount or approve to confirm"
                autoComplete="off"
                inputMode="text"
                className="bg-card text-foreground"
              />
            </label>
          ) : (
            <p>Press Enter to confirm, Escape to cancel.</p>
          )}
          <div className="flex flex-wrap gap-2">
            <Button ref={confirmButton} type="submit" size="sm" variant={confirming ? "primary" : "danger"} disabled={!typedOk}>
              {confirming ? "Confirm approve" : "Confirm reject"}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
