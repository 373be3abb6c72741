"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  CircleCheckIcon,
  CircleSlashIcon,
  HourglassIcon,
  InboxIcon,
  Link2OffIcon,
  RotateCwIcon,
  SearchXIcon,
  ShieldAlertIcon,
  ShieldCheckIcon,
  VoteIcon,
  type LucideIcon,
} from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { PageMessage } from "@/components/PageMessage";
import { Countdown } from "@/components/interactions/Countdown";
import { ArgList, FinePrint, InteractionCard } from "@/components/interactions/InteractionCard";
import { MetaItem, RequestedBy } from "@/components/interactions/RequestMeta";
import { StatusBadge, toneOf } from "@/components/interactions/StatusBadge";
import { argEntries, useToolCatalog } from "@/components/interactions/tools";
import { useTRPC } from "@/components/trpc/client";
import type { InteractionView, RouterOutputs } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Skeleton } from "@/components/ui/Skeleton";
import { largeTransferAmount } from "./confirmation";
import { DecisionControl } from "./DecisionControl";

type LinkState = RouterOutputs["decisionLinks"]["get"];
type Seen = Extract<LinkState, { interaction: unknown }>;

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const approvalsOf = (i: InteractionView) => i.votes.filter((v) => v.approved).length;
const BACK = { href: "/approvals", label: "Open your approvals inbox" };

/**
 * The page a decision link opens (`/decide/<token>`), signed in. Loading it decides nothing (mail
 * scanners open links): it shows the request and one button, and only that button decides.
 */
export function DecisionLinkPage({ token, viewerId }: { token: string; viewerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const link = useQuery(trpc.decisionLinks.get.queryOptions({ token }, { refetchOnWindowFocus: false }));
  const decide = useMutation(
    trpc.decisionLinks.decide.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.decisionLinks.get.queryKey({ token }) }),
    }),
  );

  if (link.isPending) {
    return (
      <Frame>
        <div className="grid gap-3" role="status" aria-busy="true" aria-label="Loading the request">
          <Skeleton className="h-8 w-2/3" />
          <Skeleton className="h-64 rounded-xl" />
        </div>
      </Frame>
    );
  }
  if (link.isError) {
    return (
      <Frame>
        <h1 className="text-xl font-semibold tracking-tight">Decision link</h1>
        <ErrorAlert>Could not load this request: {link.error.message}</ErrorAlert>
        <Button className="justify-self-start" onClick={() => void link.refetch()}>
          <RotateCwIcon aria-hidden="true" />
          Try again
        </Button>
      </Frame>
    );
  }
  const state = link.data;
  switch (state.state) {
    case "invalid":
      return <InvalidLink />;
    case "not_yours":
      return (
        <PageMessage icon={ShieldAlertIcon} title="This link is for another approver" testId="link-not-yours" back={BACK}>
          Decision links work only for the approver they were sent to, signed in as themselves. Nothing was changed. Sign in as that
          approver, or decide from your approvals inbox.
        </PageMessage>
      );
    case "gone":
      return (
        <PageMessage icon={SearchXIcon} title="This request no longer exists" testId="link-gone" back={BACK}>
          Its conversation was deleted, so there is nothing left to decide.
        </PageMessage>
      );
    case "open":
    case "voted":
    case "decided":
    case "used":
    case "expired":
      return <Decision token={token} viewerId={viewerId} seen={state} decide={decide} />;
  }
}

/** A link that is no decision link of this Harbor (altered, cut short, another server's). */
export function InvalidLink() {
  return (
    <PageMessage icon={Link2OffIcon} title="This link is not valid" testId="link-invalid" back={BACK}>
      It is not a decision link of this Harbor, or it was cut short when it was copied. Open it again from the message you received, or
      decide from your approvals inbox.
    </PageMessage>
  );
}

function Frame({ children }: { children: ReactNode }) {
  return (
    <div className="flex-1 overflow-y-auto">
      <div className="mx-auto grid w-full max-w-xl gap-4 p-4 sm:p-6" data-testid="decision-link">
        {children}
      </div>
    </div>
  );
}

interface Notice {
  icon: LucideIcon;
  tone: "info" | "success" | "danger" | "neutral";
  title: string;
  text: ReactNode;
}

const NOTICE_TONES: Record<Notice["tone"], string> = {
  info: "bg-info-bg text-info-fg",
  success: "bg-success-bg text-success-fg",
  danger: "bg-danger-bg text-danger-fg",
  neutral: "bg-neutral-bg text-neutral-fg",
};

function Decision({
  token,
  viewerId,
  seen,
  decide,
}: {
  token: string;
  viewerId: string;
  seen: Seen;
  decide: {
    mutateAsync(input: { token: string; reason?: string }): Promise<unknown>;
    isPending: boolean;
    error: { message: string } | null;
  };
}) {
  const catalog = useToolCatalog();
  const { interaction, decision } = seen;
  const approve = decision === "approve";
  const title = interaction.tool ? catalog.title(interaction.tool.name) : (interaction.message ?? "Approval request");
  const requester = interaction.requester.name ?? interaction.requester.email ?? "the requester";
  const notice = noticeOf(seen, requester, viewerId);

  return (
    <Frame>
      {notice ? (
        <div className="flex items-start gap-3" role="status" data-testid="link-state" data-state={seen.state}>
          <span className={cn("grid size-10 shrink-0 place-items-center rounded-full", NOTICE_TONES[notice.tone])}>
            <notice.icon className="size-5" aria-hidden="true" />
          </span>
          <div className="grid min-w-0 gap-1">
            <h1 className="text-xl font-semibold tracking-tight">{notice.title}</h1>
            <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">{notice.text}</p>
          </div>
        </div>
      ) : (
        <div className="grid gap-1" data-testid="link-state" data-state="open">
          <h1 className="text-xl font-semibold tracking-tight">{approve ? "Approve this request?" : "Reject this request?"}</h1>
          <p className="text-sm text-muted-foreground">
            {requester} asked for this. Nothing is decided until you press {approve ? "Approve" : "Reject"}.
          </p>
        </div>
      )}
      <InteractionCard
        tone={toneOf(interaction.status)}
        icon={ShieldCheckIcon}
        title={title}
        badge={<StatusBadge status={interaction.status} kind={interaction.kind} />}
        className="gap-4 p-4 sm:p-5"
        data-testid="link-request"
        data-status={interaction.status}
      >
        {interaction.message ? <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">{interaction.message}</p> : null}
        {interaction.tool ? <ArgList entries={argEntries(interaction.tool.args)} /> : null}
        <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
          <RequestedBy requester={interaction.requester} />
          <MetaItem label="Requested">{when(interaction.createdAt)}</MetaItem>
          <MetaItem label="Who decides">
            {interaction.quorum > 1
              ? `${interaction.quorum} approvers, not the requester; one rejection rejects`
              : "Any approver except the requester"}
          </MetaItem>
          {interaction.status === "pending" ? (
            <MetaItem label="Expires">
              <Countdown until={interaction.expiresAt} />
            </MetaItem>
          ) : (
            <MetaItem label="Decision" testId="link-receipt">
              {receipt(interaction, viewerId)}
            </MetaItem>
          )}
          {interaction.quorum > 1 ? (
            <MetaItem label={`Votes (${approvalsOf(interaction)} of ${interaction.quorum} approvals)`} wide>
              {interaction.votes.length === 0
                ? "No votes yet."
                : interaction.votes.map((v) => `${v.approved ? "Approved" : "Rejected"} by ${v.name ?? v.by}`).join(" · ")}
            </MetaItem>
          ) : null}
        </dl>
        {seen.state === "open" ? (
          <div className="grid gap-3 border-t pt-4" data-testid="link-decision">
            {/* The same control as everywhere a gate is decided, offering only this link's decision. */}
            <DecisionControl
              busy={decide.isPending}
              large={largeTransferAmount(interaction)}
              summary={interaction.message ?? title}
              only={approve ? "approve" : "reject"}
              onDecide={(_, reason) => decide.mutateAsync({ token, ...(reason ? { reason } : {}) })}
            />
            {decide.error ? <ErrorAlert>{decide.error.message}</ErrorAlert> : null}
            <FinePrint>
              This link decides once and only for you. Prefer the full view?{" "}
              <Link className="text-primary underline" href="/approvals">
                Decide in the approvals inbox
              </Link>
              .
            </FinePrint>
          </div>
        ) : null}
      </InteractionCard>
      {seen.state !== "open" ? (
        <Button asChild variant="secondary" className="justify-self-start no-underline">
          <Link href="/approvals">
            <InboxIcon aria-hidden="true" />
            Open your approvals inbox
          </Link>
        </Button>
      ) : null}
    </Frame>
  );
}

/** What the page says above the request, when there is nothing (more) to decide. */
function noticeOf(seen: Seen, requester: string, viewerId: string): Notice | null {
  const i = seen.interaction;
  const by = i.resolvedBy?.id === viewerId ? "you" : (i.resolvedBy?.name ?? "another approver");
  const at = i.resolvedAt ? ` on ${when(i.resolvedAt)}` : "";
  const left = i.quorum - approvalsOf(i);
  const more = `${left} more approval${left === 1 ? "" : "s"}`;
  switch (seen.state) {
    case "open":
      return null;
    case "used": {
      const on = seen.usedAt ? ` on ${when(seen.usedAt)}` : "";
      const title = "This link was already used";
      if (i.status === "pending")
        return { icon: VoteIcon, tone: "info", title, text: `You approved with it${on}: your vote is in, and it waits for ${more}.` };
      const icon = i.status === "resolved" ? CircleCheckIcon : CircleSlashIcon;
      const tone = i.status === "resolved" ? "success" : "neutral";
      // The link decided it: say so once; else what the request came to since.
      if (i.resolvedBy?.id === viewerId && (i.status === "resolved") === (seen.decision === "approve"))
        return {
          icon,
          tone,
          title,
          text: `You ${seen.decision === "approve" ? "approved" : "rejected"} this request with it${on}. Nothing more to do.`,
        };
      return { icon, tone, title, text: `You used it to ${seen.decision}${on}. ${receipt(i, viewerId)}.` };
    }
    case "decided":
      return {
        icon: i.status === "resolved" ? CircleCheckIcon : CircleSlashIcon,
        tone: i.status === "resolved" ? "success" : "neutral",
        title:
          i.status === "resolved"
            ? `Already approved by ${by}`
            : i.status === "rejected"
              ? `Already rejected by ${by}`
              : "Already withdrawn",
        text: `This request was decided${at}; there is nothing left to do.`,
      };
    case "expired":
      return {
        icon: HourglassIcon,
        tone: "neutral",
        title: "This request expired",
        text: `Nobody decided in time, so nothing was done; ${requester} has to ask again. A decision link expires with its request.`,
      };
    case "voted":
      return {
        icon: VoteIcon,
        tone: "info",
        title: "Your vote is in",
        text: `You already approved this request; it waits for ${more}.`,
      };
  }
}

function receipt(i: InteractionView, viewerId: string): string {
  const who = i.resolvedBy?.id === viewerId ? "you" : (i.resolvedBy?.name ?? i.resolvedBy?.id ?? "nobody");
  const at = i.resolvedAt ? ` on ${when(i.resolvedAt)}` : "";
  const reason = i.decision?.reason && i.decision.reason !== "cancelled" ? ` — “${i.decision.reason}”` : "";
  switch (i.status) {
    case "resolved":
      return `Approved by ${who}${at}${reason}`;
    case "rejected":
      return `Rejected by ${who}${at}${reason}`;
    case "cancelled":
      return `Withdrawn by ${who}${at}`;
    case "expired":
      return `Expired${at}: nobody decided in time`;
    case "lost":
      return `Lost when Harbor restarted${at}`;
    case "pending":
      return "Waiting for a decision";
  }
}
