"use client";

import type { InteractionView } from "@/components/trpc/types";
import type { ChatToolCall } from "@/components/chat/types";
import { Countdown } from "./Countdown";
import { DecisionForm } from "./DecisionForm";
import { StatusBadge, toneOf } from "./StatusBadge";
import { argEntries, resultSummary, useToolCatalog } from "./tools";

export interface ApprovalCardProps {
  call: ChatToolCall;
  /** The gate in front of the call (absent while it loads, or for calls that needed none). */
  interaction?: InteractionView;
  /** The call's recorded result, once it ran or was rejected. */
  result?: string;
  viewerId: string;
  /** A decision taken here but not sent yet (the thread has other open requests to answer with it). */
  chosen?: { approved: boolean };
  busy: boolean;
  onDecide(approved: boolean, reason?: string): void | Promise<unknown>;
}

/** A gated tool call in the conversation: what it will do, who decides, until when, and what happened. */
export function ApprovalCard({ call, interaction, result, viewerId, chosen, busy, onDecide }: ApprovalCardProps) {
  const status = interaction?.status;
  const outcome = resultSummary(result);
  const title = useToolCatalog().title(call.name);
  return (
    <article className={`approval-card ${toneOf(status)}`} data-testid="approval-card" data-status={status ?? "loading"} aria-label={title}>
      <header className="approval-head">
        <span className="approval-title">{title}</span>
        <StatusBadge status={status} />
      </header>
      <dl className="approval-args">
        {argEntries(call.args).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <footer className="approval-foot">{footer()}</footer>
    </article>
  );

  function footer() {
    if (!interaction) return <p className="muted small">Loading the request…</p>;
    const decidedBy = interaction.resolvedBy
      ? interaction.resolvedBy.id === viewerId
        ? "you"
        : (interaction.resolvedBy.name ?? "an approver")
      : null;
    switch (interaction.status) {
      case "pending": {
        const routed = interaction.policy === "approvers";
        return (
          <>
            <p className="small who-decides">
              {routed ? "An approver of your organisation must decide" : "Your approval is needed"} ·{" "}
              <Countdown until={interaction.expiresAt} />
            </p>
            {chosen ? (
              <p className="small muted">
                You chose to {chosen.approved ? "approve" : "reject"}; answer the other open request to send both.
              </p>
            ) : (
              <DecisionForm
                busy={busy}
                disabledReason={
                  routed && interaction.requester.id === viewerId
                    ? "You cannot approve your own request. You will see the result here as soon as an approver decides."
                    : undefined
                }
                onDecide={onDecide}
              />
            )}
          </>
        );
      }
      case "resolved":
        return (
          <p className="small outcome ok">
            Approved by {decidedBy}
            {outcome ? ` · ${outcome.text}` : " · running…"}
          </p>
        );
      case "rejected":
      case "cancelled":
        return (
          <p className="small outcome no">
            {interaction.status === "cancelled" ? "Cancelled" : "Rejected"} by {decidedBy}
            {interaction.decision?.reason && interaction.decision.reason !== "cancelled" ? `: “${interaction.decision.reason}”` : ""} ·
            nothing was done
          </p>
        );
      case "expired":
        return <p className="small outcome no">Expired before anyone decided · nothing was done. Ask again if you still need it.</p>;
      case "lost":
        return <p className="small outcome no">Lost when Harbor restarted · nothing was done. Please ask again.</p>;
    }
  }
}
