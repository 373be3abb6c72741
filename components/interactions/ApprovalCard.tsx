"use client";

import type { InteractionView } from "@/components/trpc/types";
import type { ChatToolCall } from "@/components/chat/types";
import type { GrantChoice } from "@/server/domain";
import { ShieldCheckIcon, Undo2Icon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { Countdown } from "./Countdown";
import { DecisionControl } from "@/components/decisions/DecisionControl";
import { largeTransferAmount } from "@/components/decisions/confirmation";
import { ArgList, InteractionCard, Outcome } from "./InteractionCard";
import { isDead, RetryRequest } from "./RetryRequest";
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
  onDecide(approved: boolean, reason?: string, grant?: GrantChoice): void | Promise<unknown>;
  /** The requester takes back their own open request (offered where they may: requests they answer themselves). */
  onWithdraw?(): void | Promise<unknown>;
  /** Asks again for a request that expired or was lost (offered where the conversation ended on it). */
  onRetry?(): void;
}

/** A gated tool call in the conversation: what it will do, who decides, until when, and what happened. */
export function ApprovalCard({ call, interaction, result, viewerId, chosen, busy, onDecide, onWithdraw, onRetry }: ApprovalCardProps) {
  const outcome = resultSummary(result);
  // A call a standing approval let through had no request of its own: it shows as approved.
  const standing = !interaction && outcome?.standing === true;
  const status = interaction?.status ?? (standing ? "resolved" : undefined);
  const title = useToolCatalog().title(call.name);
  return (
    <InteractionCard
      tone={toneOf(status)}
      icon={ShieldCheckIcon}
      title={title}
      badge={<StatusBadge status={status} />}
      data-testid="approval-card"
      data-status={standing ? "standing" : (status ?? "loading")}
      aria-label={title}
    >
      <ArgList entries={argEntries(call.args)} />
      <footer className="grid gap-2">
        {footer()}
        {onRetry && isDead(interaction?.status) ? <RetryRequest onRetry={onRetry} busy={busy} /> : null}
      </footer>
    </InteractionCard>
  );

  function footer() {
    if (standing) return <Outcome ok>Approved in advance by a standing approval · {outcome.text}</Outcome>;
    if (!interaction) return <p className="text-sm text-muted-foreground">Loading the request…</p>;
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
            <p className="flex flex-wrap items-center gap-x-3 gap-y-0.5 text-sm">
              <span>
                {!routed
                  ? "Your approval is needed"
                  : interaction.quorum > 1
                    ? `${interaction.quorum} approvers of your organisation must approve (${interaction.votes.filter((v) => v.approved).length} so far)`
                    : "An approver of your organisation must decide"}
                {/* The separator only while both fit on one line: on a phone the countdown wraps below. */}
                <span className="hidden text-muted-foreground sm:inline"> · </span>
              </span>
              <Countdown until={interaction.expiresAt} />
            </p>
            {chosen ? (
              <p className="text-sm text-muted-foreground">
                You chose to {chosen.approved ? "approve" : "reject"}; answer the other open request to send both.
              </p>
            ) : (
              <DecisionControl
                busy={busy}
                large={largeTransferAmount(interaction)}
                summary={interaction.message ?? title}
                grant={interaction.detail?.grant}
                disabledReason={
                  routed && interaction.requester.id === viewerId
                    ? "You cannot approve your own request. You will see the result here as soon as an approver decides."
                    : undefined
                }
                onDecide={onDecide}
              />
            )}
            {onWithdraw && interaction.requester.id === viewerId ? (
              <div>
                <Button
                  variant="link"
                  className="text-sm text-muted-foreground"
                  disabled={busy}
                  onClick={() => void Promise.resolve(onWithdraw()).catch(() => undefined)}
                >
                  <Undo2Icon aria-hidden="true" />
                  Withdraw request
                </Button>
              </div>
            ) : null}
          </>
        );
      }
      case "resolved":
        return (
          <Outcome ok>
            Approved by {decidedBy}
            {interaction.decision?.grantId ? " (and allowed from now on)" : ""}
            {outcome ? ` · ${outcome.text}` : " · running…"}
          </Outcome>
        );
      case "rejected":
      case "cancelled":
        return (
          <Outcome ok={false}>
            {interaction.status === "cancelled" ? "Cancelled" : "Rejected"} by {decidedBy}
            {interaction.decision?.reason && interaction.decision.reason !== "cancelled" ? `: “${interaction.decision.reason}”` : ""} ·
            nothing was done
          </Outcome>
        );
      // With Retry beside it, the card does not also tell the user to ask again.
      case "expired":
        return (
          <Outcome ok={false}>Expired before anyone decided · nothing was done.{onRetry ? "" : " Ask again if you still need it."}</Outcome>
        );
      case "lost":
        return <Outcome ok={false}>Lost when Harbor restarted · nothing was done.{onRetry ? "" : " Please ask again."}</Outcome>;
    }
  }
}
