"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { ArrowLeftIcon, InboxIcon, MousePointerClickIcon, RotateCwIcon } from "lucide-react";
import { usePathname } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Ask } from "@/components/decisions/DecisionControl";
import { useTRPC } from "@/components/trpc/client";
import type { InteractionView } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Skeleton } from "@/components/ui/Skeleton";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/Tabs";
import { InboxFilters, type Filters } from "./InboxFilters";
import { InboxRow } from "./InboxRow";
import { LiveStatus, useInboxFeed } from "./live";
import { isPause, needsViewer, newestFirst, nextToDecide, type Pause, vanished } from "./queue";
import { GoneDetail, RequestDetail } from "./RequestDetail";
import { isTyping, ShortcutsHelp } from "./ShortcutsHelp";

type Tab = "pending" | "decided";

const NO_FILTERS: Filters = { reason: "", tool: "", requester: "" };

/** The request a path names: `/approvals/<interactionId>`. */
function requestInPath(pathname: string): string | null {
  const match = /^\/approvals\/([^/]+)$/.exec(pathname);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

/**
 * Shows `/approvals/<id>` (or the list's own `/approvals`) without a navigation: the inbox keeps
 * its state, and Next's router follows the address. `push` makes an entry Back returns from.
 */
function showInAddressBar(interactionId: string | null, how: "push" | "replace"): void {
  const url = interactionId ? `/approvals/${encodeURIComponent(interactionId)}` : "/approvals";
  if (window.location.pathname === url) return;
  if (how === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

/**
 * The inbox, a triage queue: pending pauses the viewer may see (their own, and for approvers the
 * gates routed to the tenant's approvers) with their reason, newest first; decided receipts; live.
 * A member sees only their own requests: what waits on an approver, withdrawable, and what they
 * must answer. Every request has its address (`/approvals/<id>`): on a phone, Back from a request
 * returns to the list.
 *
 * After a decision the next request that needs the viewer comes up. Nothing moves under the
 * pointer: a decided request stays in its place in the list, with its new status, until the viewer
 * moves on (another tab or filter); the next request's buttons ignore the rest of a double click.
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
  const pathname = usePathname();
  const [tab, setTab] = useState<Tab>("pending");
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const { reason, tool, requester } = filters;
  // The request the address names; on a phone it is the one shown instead of the list.
  const routeId = requestInPath(pathname);
  // On a wide screen, with no request in the address, the first row shows; then kept by its id.
  const [firstId, setFirstId] = useState<string | null>(null);
  const selectedId = routeId ?? firstId;
  // Opened from the list on this page: Back to requests is the browser's Back.
  const pushedFromList = useRef(false);
  // Shown after a decision here: its control ignores the rest of a double click.
  const [advancedTo, setAdvancedTo] = useState<string | null>(null);
  // Decided from this page: kept in the pending list, where they were, with their new status.
  const [decidedHere, setDecidedHere] = useState<ReadonlySet<string>>(new Set());
  // Seen pending on this page: when one is lost or expires it stays listed, with a note.
  const [seenPending, setSeenPending] = useState<ReadonlySet<string>>(new Set());
  const [ask, setAsk] = useState<Ask | null>(null);
  const [help, setHelp] = useState(false);
  const phoneDetail = routeId !== null;
  const detailPane = useRef<HTMLElement>(null);
  useEffect(() => {
    if (phoneDetail && window.matchMedia("(max-width: 767px)").matches) detailPane.current?.focus();
  }, [phoneDetail, routeId]);

  // Pending requests are fetched on their own (filtered on the server), so a busy tenant's history
  // never pushes them out of the list.
  const serverFilters = { ...(tool ? { tool } : {}), ...(requester ? { requester } : {}) };
  const pending = useQuery(trpc.interactions.list.queryOptions({ ...serverFilters, status: "pending" }));
  const history = useQuery(trpc.interactions.list.queryOptions(serverFilters, { enabled: tab === "decided" }));
  // Filter choices come from everything seen, unfiltered; so do the current states of requests decided here.
  const everything = useQuery(trpc.interactions.list.queryOptions({}));
  const feed = useInboxFeed();

  const pendingIds = (pending.data ?? []).map((i) => i.interactionId);
  if (pendingIds.some((id) => !seenPending.has(id))) setSeenPending(new Set([...seenPending, ...pendingIds]));

  const current = tab === "pending" ? pending : history;
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

  if (firstId === null && rows[0]) setFirstId(rows[0].interactionId);
  // The selected request, also once it left the list (decided by someone else, filtered out, or
  // opened by its address): its receipt still shows.
  const listed = rows.find((i) => i.interactionId === selectedId);
  const fetched = useQuery(
    trpc.interactions.get.queryOptions(selectedId ? { interactionId: selectedId } : skipToken, {
      enabled: !listed && selectedId !== null,
      retry: (failures, error) => error.data?.code !== "NOT_FOUND" && failures < 2,
    }),
  );
  const selected = listed ?? (fetched.data && isPause(fetched.data) ? fetched.data : undefined);
  const gone = !listed && (fetched.error?.data?.code === "NOT_FOUND" || (fetched.data !== undefined && !isPause(fetched.data)));

  const pendingCount = rows.filter((i) => i.status === "pending").length;
  const needsMeCount = rows.filter((i) => i.status === "pending" && needsViewer(i, viewerId, viewerIsAdmin)).length;

  /** Shows a request: `push` from the list (Back returns to it), else in place of the one shown. */
  const select = useCallback(
    (interactionId: string, how: "push" | "replace" = "replace") => {
      if (how === "push" && routeId === null) pushedFromList.current = true;
      showInAddressBar(interactionId, routeId === null ? how : "replace");
      setFirstId(interactionId);
      setAsk(null);
      document.querySelector(`[data-interaction-id="${CSS.escape(interactionId)}"]`)?.scrollIntoView({ block: "nearest" });
    },
    [routeId],
  );
  const backToList = () => {
    if (pushedFromList.current) {
      pushedFromList.current = false;
      window.history.back();
    } else showInAddressBar(null, "replace");
  };
  // Keyboard: j/k move through the list, a/r ask to approve/reject the request on screen (with a
  // confirmation), ? shows the shortcuts. Never while typing in a field, never with a modifier.
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

  const onDecided = (interactionId: string, moveOn: boolean) => {
    setDecidedHere((ids) => new Set(ids).add(interactionId));
    if (!moveOn || selectedId !== interactionId) return;
    const next = nextToDecide(rows, interactionId, viewerId, viewerIsAdmin);
    if (next === null) return;
    setAdvancedTo(next);
    select(next);
  };
  /** Another tab or filter is the viewer moving on: requests decided here leave the pending list. */
  const moveOn = () => {
    showInAddressBar(null, "replace");
    pushedFromList.current = false;
    setFirstId(null);
    setDecidedHere(new Set());
  };
  const changeTab = (value: string) => {
    setTab(value === "decided" ? "decided" : "pending");
    moveOn();
  };
  const retry = () => {
    feed.retry();
    void current.refetch();
  };

  const list = current.isPending ? (
    <ul className="grid gap-2 p-3" aria-busy="true" aria-label="Loading requests">
      {[0, 1, 2].map((n) => (
        <li key={n}>
          <Skeleton className="h-16" />
        </li>
      ))}
    </ul>
  ) : current.isError && !current.data ? (
    <div className="grid gap-2 p-3" data-testid="inbox-error">
      <ErrorAlert>Could not load the requests: {current.error.message}</ErrorAlert>
      <Button size="sm" className="justify-self-start" onClick={retry}>
        <RotateCwIcon aria-hidden="true" />
        Retry
      </Button>
    </div>
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
      {current.isError ? (
        // Older rows stay on screen, marked as possibly out of date, until a reload works.
        <div className="flex flex-wrap items-center gap-2 rounded-lg bg-warning-bg px-3 py-2 text-xs text-warning-fg" role="status">
          Could not refresh the requests; they may be out of date.
          <Button size="sm" variant="ghost" className="h-6 px-2 text-xs" onClick={retry}>
            <RotateCwIcon aria-hidden="true" />
            Retry
          </Button>
        </div>
      ) : null}
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
                  <InboxRow
                    interaction={i}
                    current={selected?.interactionId === i.interactionId}
                    onOpen={() => {
                      setAdvancedTo(null);
                      select(i.interactionId, "push");
                    }}
                  />
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
              <LiveStatus state={feed.state} onRetry={retry} />
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
            <InboxFilters
              filters={filters}
              seen={(everything.data ?? []).filter(isPause)}
              byRequester={viewerIsApprover}
              onChange={(next) => {
                setFilters(next);
                moveOn();
              }}
            />
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
          <Button variant="ghost" size="sm" className="justify-self-start md:hidden" onClick={backToList}>
            <ArrowLeftIcon aria-hidden="true" />
            Back to requests
          </Button>
          {selected ? (
            <RequestDetail
              key={selected.interactionId}
              interaction={selected}
              viewerId={viewerId}
              viewerIsAdmin={viewerIsAdmin}
              ask={ask}
              settle={advancedTo === selected.interactionId}
              onDecided={onDecided}
            />
          ) : gone ? (
            <GoneDetail />
          ) : selectedId && fetched.isError ? (
            <div className="grid gap-2">
              <ErrorAlert>Could not load this request: {fetched.error.message}</ErrorAlert>
              <Button size="sm" className="justify-self-start" onClick={() => void fetched.refetch()}>
                <RotateCwIcon aria-hidden="true" />
                Retry
              </Button>
            </div>
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
