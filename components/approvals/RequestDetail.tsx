"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { AlertTriangleIcon, CheckIcon, InboxIcon, SearchXIcon, Undo2Icon, XIcon } from "lucide-react";
import { DecisionControl, type Ask } from "@/components/decisions/DecisionControl";
import { largeTransferAmount } from "@/components/decisions/confirmation";
import { Countdown } from "@/components/interactions/Countdown";
import { ArgList, InteractionCard } from "@/components/interactions/InteractionCard";
import { MetaItem, RequestedBy } from "@/components/interactions/RequestMeta";
import { StatusBadge, toneOf } from "@/components/interactions/StatusBadge";
import { REASON_LABELS } from "@/components/interactions/reasons";
import { argEntries, useToolCatalog } from "@/components/interactions/tools";
import { useTRPC } from "@/components/trpc/client";
import type { InteractionView } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { useToast } from "@/components/ui/Toaster";
import type { GrantChoice, InteractionKind } from "@/server/domain";
import { deadlineSteps, escalatedToViewer } from "./deadline";
import { Conversation } from "./Conversation";
import { approvalsOf, type Pause, vanished, votedBy, when } from "./queue";

/** A request the inbox cannot show any more: its conversation was deleted (or it never was the viewer's to see). */
export function GoneDetail() {
  return (
    <EmptyState icon={SearchXIcon} title="This request no longer exists." data-testid="gone-detail">
      Its conversation was deleted, or it is not yours to see. Nothing is left to decide here.
    </EmptyState>
  );
}

export function RequestDetail({
  interaction,
  viewerId,
  viewerIsAdmin,
  ask,
  settle,
  onDecided,
}: {
  interaction: Pause;
  viewerId: string;
  viewerIsAdmin: boolean;
  ask: Ask | null;
  /** The inbox just moved here after a decision: the control ignores the rest of a double click. */
  settle: boolean;
  /** A decision was taken here (`moveOn`: the inbox may show the next request). */
  onDecided(interactionId: string, moveOn: boolean): void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const catalog = useToolCatalog();
  const toast = useToast();
  const title = interaction.tool ? catalog.title(interaction.tool.name) : (interaction.message ?? REASON_LABELS[interaction.pauseReason]);
  // The list and this request's own record both change with a decision.
  const onSettled = () => queryClient.invalidateQueries({ queryKey: trpc.interactions.pathKey() });
  const approve = useMutation(trpc.interactions.approve.mutationOptions({ onSettled }));
  const reject = useMutation(trpc.interactions.reject.mutationOptions({ onSettled }));
  const withdrawal = useMutation(trpc.interactions.resume.mutationOptions({ onSettled }));
  const busy = approve.isPending || reject.isPending || withdrawal.isPending;
  const failure = approve.error ?? reject.error ?? withdrawal.error;
  // The requester may take back their own approval request, whoever decides it (nothing gated runs).
  const withdrawable = interaction.kind === "approval" && interaction.status === "pending" && interaction.requester.id === viewerId;
  const withdraw = async () => {
    try {
      await withdrawal.mutateAsync({ interactionId: interaction.interactionId, status: "cancelled" });
    } catch {
      toast({ tone: "error", title: "Could not withdraw the request", detail: interaction.message ?? title });
      return;
    }
    onDecided(interaction.interactionId, false);
    toast({ tone: "success", title: "Request withdrawn", detail: interaction.message ?? title });
  };
  const own = interaction.requester.id === viewerId && interaction.policy === "approvers";
  const decide = async (approved: boolean, reason?: string, grant?: GrantChoice) => {
    const input = { interactionId: interaction.interactionId, ...(reason ? { reason } : {}) };
    let continued: string[];
    try {
      ({ continued } = approved ? await approve.mutateAsync({ ...input, ...(grant ? { grant } : {}) }) : await reject.mutateAsync(input));
    } catch (error) {
      toast({ tone: "error", title: `Could not ${approved ? "approve" : "reject"}`, detail: interaction.message ?? title });
      throw error;
    }
    onDecided(interaction.interactionId, true);
    const voteOnly = approved && interaction.quorum > 1 && continued.length === 0;
    toast({
      tone: "success",
      title: voteOnly ? "Vote recorded" : grant ? "Approved, and allowed from now on" : approved ? "Approved" : "Rejected",
      detail: voteOnly ? `${interaction.message ?? title} needs the other approvers too.` : (interaction.message ?? title),
    });
  };

  return (
    <InteractionCard
      tone={toneOf(interaction.status)}
      icon={InboxIcon}
      title={title}
      badge={<StatusBadge status={interaction.status} kind={interaction.kind} />}
      className="gap-4 p-4 sm:p-5"
      data-testid="inbox-detail"
      data-status={interaction.status}
    >
      <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">{interaction.message}</p>
      {vanished(interaction) ? (
        <p
          role="status"
          className="flex items-start gap-2 rounded-lg border border-warning-border bg-warning-bg px-3 py-2 text-sm text-warning-fg"
          data-testid="vanished-detail"
        >
          <AlertTriangleIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          {interaction.status === "lost"
            ? "This request was lost: the Harbor process that held it restarted before anyone decided. Nothing was done; its run ended, and the requester has to ask again."
            : "This request expired before anyone decided. Nothing was done; its run ended, and the requester has to ask again."}
        </p>
      ) : null}
      {interaction.tool ? <ArgList entries={argEntries(interaction.tool.args)} /> : null}
      <Conversation interaction={interaction} viewerId={viewerId} viewerIsAdmin={viewerIsAdmin} />
      <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
        <RequestedBy requester={interaction.requester} />
        <MetaItem label="Requested">{when(interaction.createdAt)}</MetaItem>
        <MetaItem label="Reason" testId="detail-reason">
          {interaction.kind === "mcp_input" ? "MCP server" : REASON_LABELS[interaction.pauseReason]}
          {interaction.detail?.agent ? ` · ${interaction.detail.agent}` : ""}
          {interaction.detail?.mcp ? ` · ${interaction.detail.mcp.server}` : ""}
        </MetaItem>
        <MetaItem label="Who decides">
          {interaction.kind === "oauth"
            ? "The requester, by connecting at the provider"
            : interaction.policy === "approvers"
              ? interaction.quorum > 1
                ? `${interaction.quorum} approvers, not the requester; one rejection rejects`
                : "Any approver except the requester"
              : interaction.policy === "admins"
                ? "An admin (resume from the console)"
                : "The requester"}
          {interaction.deadline.escalatedAt && interaction.deadline.escalateTo
            ? ` — and, since it was escalated, the tenant's ${interaction.deadline.escalateTo}`
            : ""}
        </MetaItem>
        {interaction.quorum > 1 ? (
          <MetaItem label={`Votes (${approvalsOf(interaction)} of ${interaction.quorum} approvals)`} testId="votes" wide>
            <Votes interaction={interaction} viewerId={viewerId} />
          </MetaItem>
        ) : null}
        {interaction.status === "pending" ? (
          <MetaItem label="Expires">
            <Countdown until={interaction.expiresAt} />
          </MetaItem>
        ) : null}
        {interaction.kind === "approval" && (interaction.status === "pending" || interaction.status === "expired") ? (
          <MetaItem label="Deadline" testId="deadline" wide>
            <ul className="grid gap-0.5">
              {deadlineSteps(interaction.deadline).map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ul>
          </MetaItem>
        ) : null}
        {interaction.status === "pending" ? null : (
          <MetaItem label="Decision" testId="receipt" wide>
            {receipt(interaction, viewerId)}
          </MetaItem>
        )}
      </dl>
      {interaction.status === "pending" && interaction.kind !== "approval" ? (
        <footer className="border-t pt-4">
          <p className="text-sm text-muted-foreground">
            {interaction.kind === "operator" ? (
              <>
                Resumed by an admin from the{" "}
                <a className="text-primary underline" href="/console">
                  console
                </a>
                .
              </>
            ) : interaction.requester.id === viewerId ? (
              <>
                Answer it in{" "}
                <a className="text-primary underline" href={`/chat/${encodeURIComponent(interaction.threadId)}`}>
                  your conversation
                </a>
                .
              </>
            ) : (
              "Only the requester can answer this one, in their conversation."
            )}
          </p>
        </footer>
      ) : interaction.status === "pending" ? (
        // On a phone the request is taller than the screen: its decision stays at the bottom edge
        // while the details scroll under it, so Approve is never below the fold.
        <footer className="grid gap-2 border-t pt-4 max-md:sticky max-md:bottom-0 max-md:-mx-4 max-md:-mb-4 max-md:rounded-b-xl max-md:bg-card max-md:px-4 max-md:pb-4 max-md:shadow-[0_-10px_16px_-12px_rgb(0_0_0/0.3)]">
          <DecisionControl
            busy={busy}
            settle={settle}
            large={largeTransferAmount(interaction)}
            summary={interaction.message ?? title}
            ask={ask}
            grant={interaction.detail?.grant}
            disabledReason={
              own
                ? "You requested this, so another approver must decide (four-eyes rule)."
                : votedBy(interaction, viewerId)
                  ? `You approved; it waits for ${interaction.quorum - approvalsOf(interaction)} more approval${interaction.quorum - approvalsOf(interaction) === 1 ? "" : "s"}.`
                  : interaction.policy === "owner" &&
                      interaction.requester.id !== viewerId &&
                      !escalatedToViewer(interaction.deadline, viewerIsAdmin)
                    ? "Only the requester can answer this one."
                    : undefined
            }
            onDecide={decide}
          />
          {withdrawable ? (
            <Button
              variant="secondary"
              size="sm"
              className="justify-self-start"
              disabled={busy}
              onClick={() => void withdraw()}
              data-testid="withdraw-request"
            >
              <Undo2Icon aria-hidden="true" />
              Withdraw request
            </Button>
          ) : null}
          {failure ? <ErrorAlert>{failure.message}</ErrorAlert> : null}
        </footer>
      ) : null}
    </InteractionCard>
  );
}

/** A quorum gate's votes so far, and who may still vote while it is open. */
function Votes({ interaction, viewerId }: { interaction: InteractionView; viewerId: string }) {
  const name = (id: string, fallback: string | null) => (id === viewerId ? "you" : (fallback ?? id));
  return (
    <div className="grid gap-1">
      {interaction.votes.length === 0 ? <span className="text-muted-foreground">No votes yet.</span> : null}
      <ul className="grid gap-1">
        {interaction.votes.map((v) => (
          <li key={v.by} className="flex flex-wrap items-center gap-x-1.5">
            {v.approved ? (
              <CheckIcon className="size-3.5 text-success-fg" aria-hidden="true" />
            ) : (
              <XIcon className="size-3.5 text-danger-fg" aria-hidden="true" />
            )}
            <span>
              {v.approved ? "Approved" : "Rejected"} by {name(v.by, v.name)} {when(v.at)}
              {v.reason ? ` — “${v.reason}”` : ""}
            </span>
          </li>
        ))}
      </ul>
      {interaction.mayVote.length > 0 ? (
        <span className="text-xs text-muted-foreground">
          May still vote: {interaction.mayVote.map((u) => name(u.id, u.name)).join(", ")}
        </span>
      ) : null}
    </div>
  );
}

/** How a resolved request of each kind reads in its receipt: a new kind does not build until it has words here. */
const RESOLVED_AS = {
  approval: "Approved",
  client_tool: "Answered",
  private_input: "Submitted",
  oauth: "Connected",
  a2a: "Answered",
  mcp_input: "Answered",
  operator: "Resumed",
  external_wait: "Completed",
} as const satisfies Record<InteractionKind, string>;

function receipt(i: InteractionView, viewerId: string): string {
  const who = i.resolvedBy ? (i.resolvedBy.id === viewerId ? "you" : (i.resolvedBy.name ?? i.resolvedBy.id)) : "nobody";
  const at = i.resolvedAt ? ` on ${when(i.resolvedAt)}` : "";
  const reason = i.decision?.reason && i.decision.reason !== "cancelled" ? ` — “${i.decision.reason}”` : "";
  switch (i.status) {
    case "resolved":
      return i.kind === "approval" ? `Approved by ${who}${at}${reason}` : `${RESOLVED_AS[i.kind]} by ${who}${at}`;
    case "rejected":
      return `Rejected by ${who}${at}${reason}`;
    case "cancelled":
      return i.resolvedBy?.id === i.requester.id ? `Withdrawn by ${who}${at}` : `Cancelled by ${who}${at}`;
    case "expired":
      return `Expired${at}: nobody decided in time`;
    case "lost":
      return `Lost when Harbor restarted${at}`;
    case "pending":
      return "Pending";
  }
}
