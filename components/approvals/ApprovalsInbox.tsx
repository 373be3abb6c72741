"use client";

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import {
  AlarmClockIcon,
  AlertTriangleIcon,
  ArrowLeftIcon,
  CheckIcon,
  InboxIcon,
  MousePointerClickIcon,
  SlidersHorizontalIcon,
  Undo2Icon,
  UserIcon,
  XIcon,
} from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Countdown } from "@/components/interactions/Countdown";
import { ArgList, InteractionCard } from "@/components/interactions/InteractionCard";
import { StatusBadge, toneOf } from "@/components/interactions/StatusBadge";
import { PAUSE_REASON_LIST, REASON_LABELS, ReasonBadge } from "@/components/interactions/reasons";
import { argEntries, useToolCatalog } from "@/components/interactions/tools";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Select } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/Tabs";
import { useToast } from "@/components/ui/Toaster";
import type { InteractionView } from "@/components/trpc/types";
import { largeTransferAmount } from "./confirmation";
import { deadlineFlag, deadlineSteps, escalatedToViewer } from "./deadline";
import { Conversation } from "./Conversation";
import { InboxDecision, type Ask } from "./InboxDecision";
import { isTyping, ShortcutsHelp } from "./ShortcutsHelp";
import type { GrantChoice, InteractionKind } from "@/server/domain";

type Tab = "pending" | "decided";
type Reason = NonNullable<InteractionView["pauseReason"]>;
type Pause = InteractionView & { pauseReason: Reason };

/** Pauses only: a browser tool's result or background work is nobody's decision. */
const isPause = (i: InteractionView): i is Pause => i.pauseReason !== null;

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Requests that ended without a decision: they stay in the list with a note instead of vanishing. */
const vanished = (i: InteractionView) => i.status === "lost" || i.status === "expired";

/**
 * Whose move it is: the viewer's own work ("Needs me") — a gate routed to approvers that someone
 * else asked for, their own question to answer in their conversation, an operator pause for an
 * admin — or someone else's ("Waiting on others"), such as the viewer's own gate, which another
 * approver must decide (four-eyes rule).
 */
function needsViewer(i: InteractionView, viewerId: string, viewerIsAdmin: boolean): boolean {
  const own = i.requester.id === viewerId;
  // A vote already cast on a gate that needs several approvers leaves it to the others.
  if (escalatedToViewer(i.deadline, viewerIsAdmin)) return !own && !votedBy(i, viewerId);
  if (i.policy === "approvers") return !own && !votedBy(i, viewerId);
  if (i.policy === "admins") return viewerIsAdmin;
  return own;
}

const votedBy = (i: InteractionView, viewerId: string) => i.votes.some((v) => v.by === viewerId);
const approvalsOf = (i: InteractionView) => i.votes.filter((v) => v.approved).length;

/** Newest first, as the server lists them. */
const newestFirst = (a: InteractionView, b: InteractionView) => b.createdAt.localeCompare(a.createdAt);

/**
 * The inbox: pending pauses the viewer may see (their own, and for approvers the gates routed to
 * the tenant's approvers) with their reason, newest first; decided receipts; live. A member sees
 * only their own requests: what waits on an approver, withdrawable, and what they must answer.
 *
 * Nothing moves under the pointer: the selection changes only when the viewer picks a row or a
 * tab, a decided request stays selected (showing its receipt) and stays in its place in the
 * pending list until the viewer moves on.
 */
export function ApprovalsInbox({
  viewerId,
  viewerIsApprover = true,
  viewerIsAdmin = false,
}: {
  viewerId: string;
  viewerIsApprover?: boolean;
  viewerIsAdmin?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const catalog = useToolCatalog();
  const [tab, setTab] = useState<Tab>("pending");
  const [tool, setTool] = useState("");
  const [requester, setRequester] = useState("");
  const [reason, setReason] = useState<Reason | "">("");
  // The filters fold behind one button: three selects side by side do not fit a narrow list.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  // Decided from this page: kept in the pending list, where they were, with their new status.
  const [decidedHere, setDecidedHere] = useState<ReadonlySet<string>>(new Set());
  // Seen pending on this page: when one is lost or expires it stays listed, with a note.
  const [seenPending, setSeenPending] = useState<ReadonlySet<string>>(new Set());
  const [ask, setAsk] = useState<Ask | null>(null);
  const [help, setHelp] = useState(false);
  // Phones show the list or one request: a picked row opens its detail, Back returns to the list.
  const [phoneDetail, setPhoneDetail] = useState(false);
  const detailPane = useRef<HTMLElement>(null);
  useEffect(() => {
    if (phoneDetail && window.matchMedia("(max-width: 767px)").matches) detailPane.current?.focus();
  }, [phoneDetail]);

  // Pending requests are fetched on their own (filtered on the server), so a busy tenant's history
  // never pushes them out of the list.
  const filters = { ...(tool ? { tool } : {}), ...(requester ? { requester } : {}) };
  const pending = useQuery(trpc.interactions.list.queryOptions({ ...filters, status: "pending" }));
  const history = useQuery(trpc.interactions.list.queryOptions(filters, { enabled: tab === "decided" }));
  // Filter choices come from everything seen, unfiltered; so do the current states of requests decided here.
  const everything = useQuery(trpc.interactions.list.queryOptions({}));
  const live = useSubscription(
    trpc.interactions.events.subscriptionOptions(undefined, {
      onData: () => void queryClient.invalidateQueries({ queryKey: trpc.interactions.pathKey() }),
    }),
  );

  const pendingIds = (pending.data ?? []).map((i) => i.interactionId);
  if (pendingIds.some((id) => !seenPending.has(id))) setSeenPending(new Set([...seenPending, ...pendingIds]));

  const current = tab === "pending" ? pending : history;
  const activeFilters = [reason, tool, requester].filter(Boolean).length;
  const rows = useMemo(() => {
    const matches = (i: InteractionView): i is Pause =>
      isPause(i) &&
      (!reason || i.pauseReason === reason) &&
      (!tool || i.tool?.name === tool) &&
      (!requester || i.requester.id === requester);
    if (tab === "decided") return (history.data ?? []).filter(matches).filter((i) => i.status !== "pending");
    const open = (pending.data ?? []).filter(matches);
    const openIds = new Set(open.map((i) => i.interactionId));
    const decided = (everything.data ?? [])
      .filter(
        (i) => (decidedHere.has(i.interactionId) || (seenPending.has(i.interactionId) && vanished(i))) && !openIds.has(i.interactionId),
      )
      .filter(matches);
    const all = [...open, ...decided].sort(newestFirst);
    // Needs me first, then waiting on others: the order j and k move in.
    return [...all.filter((i) => needsViewer(i, viewerId, viewerIsAdmin)), ...all.filter((i) => !needsViewer(i, viewerId, viewerIsAdmin))];
  }, [tab, reason, tool, requester, pending.data, history.data, everything.data, decidedHere, seenPending, viewerId, viewerIsAdmin]);

  // The first row is selected when the list first shows, and then kept by its id.
  if (selectedId === null && rows[0]) setSelectedId(rows[0].interactionId);
  // The selected request, also once it left the list (decided by someone else, filtered out): its receipt still shows.
  const listed = rows.find((i) => i.interactionId === selectedId);
  const fetched = useQuery(
    trpc.interactions.get.queryOptions(selectedId ? { interactionId: selectedId } : skipToken, { enabled: !listed && selectedId !== null }),
  );
  const selected = listed ?? (fetched.data && isPause(fetched.data) ? fetched.data : undefined);

  const seen = (everything.data ?? []).filter(isPause);
  const tools = [...new Set(seen.flatMap((i) => (i.tool ? [i.tool.name] : [])))].sort();
  const requesters = [...new Map(seen.map((i) => [i.requester.id, i.requester.name ?? i.requester.email ?? i.requester.id])).entries()];
  const pendingCount = rows.filter((i) => i.status === "pending").length;
  const needsMeCount = rows.filter((i) => i.status === "pending" && needsViewer(i, viewerId, viewerIsAdmin)).length;

  // Keyboard: j/k move through the list, a/r ask to approve/reject the request on screen (with a
  // confirmation), ? shows the shortcuts. Never while typing in a field, never with a modifier.
  const select = useCallback((interactionId: string) => {
    setSelectedId(interactionId);
    setAsk(null);
    document.querySelector(`[data-interaction-id="${CSS.escape(interactionId)}"]`)?.scrollIntoView({ block: "nearest" });
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      if (e.key === "?") {
        e.preventDefault();
        setHelp((open) => !open);
        return;
      }
      if (e.key === "j" || e.key === "k") {
        if (rows.length === 0) return;
        e.preventDefault();
        const at = rows.findIndex((i) => i.interactionId === selectedId);
        const next = at < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, at + (e.key === "j" ? 1 : -1)));
        select(rows[next]!.interactionId);
      } else if ((e.key === "a" || e.key === "r") && selectedId) {
        e.preventDefault();
        setAsk({ approved: e.key === "a", n: Date.now() });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, selectedId, select]);
  /** Another tab or filter is the viewer moving on: requests decided here leave the pending list. */
  const moveOn = () => {
    setSelectedId(null);
    setDecidedHere(new Set());
  };

  const changeTab = (value: string) => {
    setTab(value === "decided" ? "decided" : "pending");
    moveOn();
  };
  const list = current.isPending ? (
    <ul className="grid gap-2 p-3" aria-busy="true" aria-label="Loading requests">
      {[0, 1, 2].map((n) => (
        <li key={n}>
          <Skeleton className="h-16" />
        </li>
      ))}
    </ul>
  ) : current.isError ? (
    <ErrorAlert className="m-3">Could not load the requests: {current.error.message}</ErrorAlert>
  ) : rows.length === 0 ? (
    <EmptyState
      icon={InboxIcon}
      title={
        tab === "pending"
          ? viewerIsApprover
            ? "Nothing is waiting for a decision."
            : "None of your requests is waiting."
          : "No decisions yet."
      }
      data-testid="inbox-empty"
    >
      {tab === "pending"
        ? viewerIsApprover
          ? "New requests appear here as soon as a run pauses."
          : "When something you asked for needs an approver, it waits here until they decide; you can withdraw it meanwhile."
        : null}
    </EmptyState>
  ) : (
    <div className="grid gap-1 p-2" data-testid="inbox-rows">
      {(tab === "pending"
        ? ([
            ["needs-me", "Needs me", rows.filter((i) => needsViewer(i, viewerId, viewerIsAdmin))],
            ["waiting", "Waiting on others", rows.filter((i) => !needsViewer(i, viewerId, viewerIsAdmin))],
          ] as const)
        : ([["decided", null, rows]] as const)
      )
        // A member decides nobody's requests: "Needs me" shows only when one of their own asks them something.
        .filter(([key, , group]) => viewerIsApprover || key !== "needs-me" || group.length > 0)
        .map(([key, label, group]) => (
          <section key={key} aria-label={label ?? "Decided requests"} data-testid={`inbox-group-${key}`} className="grid gap-1">
            {label ? (
              <h2 className="flex items-center justify-between px-2 pt-2 pb-1 text-xs font-semibold tracking-wide text-muted-foreground uppercase">
                {label}
                <span className="tabular-nums">{group.filter((i) => i.status === "pending").length}</span>
              </h2>
            ) : null}
            {group.length === 0 && label ? (
              <p className="px-2 pb-2 text-xs text-muted-foreground">
                {key === "needs-me"
                  ? "Nothing needs you right now."
                  : viewerIsApprover
                    ? "Nothing of yours is waiting on anyone."
                    : "Nothing of yours is waiting on an approver."}
              </p>
            ) : null}
            <ul className="grid gap-1">
              {group.map((i) => (
                <li key={i.interactionId}>
                  <button
                    type="button"
                    className="grid w-full cursor-pointer gap-1.5 rounded-lg border border-transparent px-3 py-2.5 text-left transition-colors hover:bg-accent aria-[current=true]:border-border aria-[current=true]:bg-card aria-[current=true]:shadow-xs"
                    aria-current={selected?.interactionId === i.interactionId}
                    onClick={() => {
                      select(i.interactionId);
                      setPhoneDetail(true);
                    }}
                    data-testid="inbox-row"
                    data-status={i.status}
                    data-interaction-id={i.interactionId}
                  >
                    <span className="flex min-w-0 items-start justify-between gap-2">
                      <strong className="line-clamp-2 min-w-0 text-sm font-medium [overflow-wrap:anywhere]">{i.message}</strong>
                      <StatusBadge status={i.status} kind={i.kind} />
                    </span>
                    <span className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
                      <ReasonBadge reason={i.pauseReason} />
                      <span className="truncate">
                        {i.requester.name ?? i.requester.email} · {when(i.createdAt)}
                      </span>
                      {deadlineFlag(i) ? (
                        <span className="flex items-center gap-1 font-medium text-warning-fg" data-testid="row-deadline">
                          <AlarmClockIcon className="size-3.5 shrink-0" aria-hidden="true" />
                          {deadlineFlag(i)}
                        </span>
                      ) : null}
                      {i.quorum > 1 && i.status === "pending" ? (
                        <span className="font-medium text-foreground" data-testid="row-votes">
                          {approvalsOf(i)} of {i.quorum} approvals
                        </span>
                      ) : null}
                    </span>
                    {vanished(i) ? (
                      <span className="flex items-center gap-1 text-xs text-warning-fg" data-testid="vanished-note">
                        <AlertTriangleIcon className="size-3.5 shrink-0" aria-hidden="true" />
                        {i.status === "lost" ? "Lost when Harbor restarted — nobody can decide it now" : "Expired before anyone decided"}
                      </span>
                    ) : null}
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ))}
    </div>
  );

  return (
    <div className="flex min-h-0 flex-1">
      <aside
        className={cn("w-full min-w-0 flex-col border-r bg-surface md:flex md:w-96 lg:w-[26rem]", phoneDetail ? "hidden" : "flex")}
        aria-label="Approval requests"
      >
        <Tabs value={tab} onValueChange={changeTab} className="flex min-h-0 flex-1 flex-col">
          <div className="grid gap-3 border-b p-3">
            <div className="flex items-center justify-between gap-2">
              <h1 className="text-base font-semibold tracking-tight">Approvals</h1>
              <span className="ml-auto" />
              <span
                className={cn("flex items-center gap-1.5 text-xs", live.status === "pending" ? "text-success-fg" : "text-muted-foreground")}
                title="Updates arrive as they happen"
              >
                <span
                  className={cn(
                    "size-2 rounded-full",
                    live.status === "pending" ? "animate-pulse-soft bg-success-fg" : "bg-muted-foreground",
                  )}
                  aria-hidden="true"
                />
                {live.status === "pending" ? "Live" : "Connecting…"}
              </span>
              <ShortcutsHelp open={help} onOpenChange={setHelp} />
            </div>
            <TabsList className="grid w-full grid-cols-2">
              <TabsTrigger value="pending">
                Pending
                {pendingCount > 0 ? (
                  <span
                    className="rounded-full bg-primary px-1.5 text-xs leading-5 text-primary-foreground tabular-nums"
                    title={`${needsMeCount} need you`}
                  >
                    {pendingCount}
                  </span>
                ) : null}
              </TabsTrigger>
              <TabsTrigger value="decided">Decided</TabsTrigger>
            </TabsList>
            <div className="flex flex-wrap items-center gap-2">
              <Button
                size="sm"
                variant="ghost"
                className="-ml-2"
                aria-expanded={filtersOpen}
                aria-controls="inbox-filters"
                onClick={() => setFiltersOpen((open) => !open)}
                data-testid="filters-toggle"
              >
                <SlidersHorizontalIcon aria-hidden="true" />
                Filters
                {activeFilters > 0 ? (
                  <span className="rounded-full bg-primary px-1.5 text-xs leading-5 text-primary-foreground tabular-nums">
                    {activeFilters}
                    <span className="sr-only"> active</span>
                  </span>
                ) : null}
              </Button>
              {activeFilters > 0 ? (
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => {
                    setReason("");
                    setTool("");
                    setRequester("");
                    moveOn();
                  }}
                >
                  <XIcon aria-hidden="true" />
                  Clear filters
                </Button>
              ) : null}
            </div>
            <div id="inbox-filters" className={cn("gap-2", filtersOpen ? "grid" : "hidden")} data-testid="inbox-filters">
              <FilterSelect
                label="Reason"
                value={reason}
                onChange={(value) => {
                  setReason(value as Reason | "");
                  moveOn();
                }}
                options={[["", "All reasons"], ...PAUSE_REASON_LIST.map((r): [string, string] => [r, REASON_LABELS[r]])]}
              />
              <FilterSelect
                label="Tool"
                value={tool}
                onChange={(value) => {
                  setTool(value);
                  moveOn();
                }}
                options={[["", "All tools"], ...tools.map((t): [string, string] => [t, catalog.title(t)])]}
              />
              {/* A member's inbox holds only their own requests: nobody else to filter by. */}
              {viewerIsApprover ? (
                <FilterSelect
                  label="Requester"
                  value={requester}
                  onChange={(value) => {
                    setRequester(value);
                    moveOn();
                  }}
                  options={[["", "Everyone"], ...requesters]}
                />
              ) : null}
            </div>
          </div>
          <TabsContent value="pending" className="min-h-0 flex-1 overflow-y-auto">
            {tab === "pending" ? list : null}
          </TabsContent>
          <TabsContent value="decided" className="min-h-0 flex-1 overflow-y-auto">
            {tab === "decided" ? list : null}
          </TabsContent>
        </Tabs>
      </aside>
      <section
        ref={detailPane}
        tabIndex={-1}
        className={cn("min-w-0 flex-1 overflow-y-auto outline-none md:block", phoneDetail ? "block" : "hidden")}
        aria-label="Request detail"
      >
        <div className="mx-auto grid max-w-2xl gap-3 p-3 sm:p-6">
          {/* The list (and its heading) is hidden on phones while a request shows. */}
          <h1 className="sr-only md:hidden">Approvals</h1>
          <Button variant="ghost" size="sm" className="justify-self-start md:hidden" onClick={() => setPhoneDetail(false)}>
            <ArrowLeftIcon aria-hidden="true" />
            Back to requests
          </Button>
          {selected ? (
            <Detail
              key={selected.interactionId}
              interaction={selected}
              viewerId={viewerId}
              viewerIsAdmin={viewerIsAdmin}
              ask={ask}
              onDecided={(id) => setDecidedHere((ids) => new Set(ids).add(id))}
            />
          ) : selectedId && fetched.isPending ? (
            <Skeleton className="h-64 rounded-xl" />
          ) : (
            <EmptyState icon={MousePointerClickIcon} title="Select a request to see it in full." />
          )}
        </div>
      </section>
    </div>
  );
}

function Detail({
  interaction,
  viewerId,
  viewerIsAdmin,
  ask,
  onDecided,
}: {
  interaction: Pause;
  viewerId: string;
  viewerIsAdmin: boolean;
  ask: Ask | null;
  onDecided(interactionId: string): void;
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
    onDecided(interaction.interactionId);
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
    onDecided(interaction.interactionId);
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
        <MetaItem label="Requested by">
          <span className="flex min-w-0 items-center gap-1.5">
            <UserIcon className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
            {interaction.requester.name}
          </span>
          <span className="block truncate text-xs text-muted-foreground">{interaction.requester.email}</span>
        </MetaItem>
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
          <InboxDecision
            busy={busy}
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

/** One labelled filter of the list: `options` are `[value, label]` pairs. */
function FilterSelect({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <label className="grid grid-cols-[5.5rem_minmax(0,1fr)] items-center gap-2 text-xs font-medium text-muted-foreground">
      {label}
      <Select
        aria-label={`Filter by ${label.toLowerCase()}`}
        value={value}
        className="h-8 px-2 text-sm text-foreground sm:text-sm"
        onChange={(e) => onChange(e.target.value)}
      >
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </Select>
    </label>
  );
}

function MetaItem({ label, testId, wide, children }: { label: string; testId?: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={cn("min-w-0", wide && "sm:col-span-2")}>
      <dt className="text-xs font-medium text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 [overflow-wrap:anywhere]" data-testid={testId}>
        {children}
      </dd>
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
