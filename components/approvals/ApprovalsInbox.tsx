"use client";

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useMemo, useState } from "react";
import { Countdown } from "@/components/interactions/Countdown";
import { DecisionForm } from "@/components/interactions/DecisionForm";
import { StatusBadge, toneOf } from "@/components/interactions/StatusBadge";
import { PAUSE_REASON_LIST, REASON_LABELS, ReasonBadge } from "@/components/interactions/reasons";
import { argEntries, useToolCatalog } from "@/components/interactions/tools";
import { useTRPC } from "@/components/trpc/client";
import { useToast } from "@/components/ui/Toaster";
import type { InteractionView } from "@/components/trpc/types";

type Tab = "pending" | "decided";
type Reason = NonNullable<InteractionView["pauseReason"]>;
type Pause = InteractionView & { pauseReason: Reason };

/** Pauses only: a browser tool's result or background work is nobody's decision. */
const isPause = (i: InteractionView): i is Pause => i.pauseReason !== null;

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Newest first, as the server lists them. */
const newestFirst = (a: InteractionView, b: InteractionView) => b.createdAt.localeCompare(a.createdAt);

/**
 * The inbox: pending pauses the viewer may see (their own, and gates routed to the tenant's
 * approvers) with their reason, newest first; decided receipts; live.
 *
 * Nothing moves under the pointer: the selection changes only when the viewer picks a row or a
 * tab, a decided request stays selected (showing its receipt) and stays in its place in the
 * pending list until the viewer moves on.
 */
export function ApprovalsInbox({ viewerId }: { viewerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const catalog = useToolCatalog();
  const [tab, setTab] = useState<Tab>("pending");
  const [tool, setTool] = useState("");
  const [requester, setRequester] = useState("");
  const [reason, setReason] = useState<Reason | "">("");
  const [selectedId, setSelectedId] = useState<string | null>(null);
  // Decided from this page: kept in the pending list, where they were, with their new status.
  const [decidedHere, setDecidedHere] = useState<ReadonlySet<string>>(new Set());

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
      .filter((i) => decidedHere.has(i.interactionId) && !openIds.has(i.interactionId))
      .filter(matches);
    return [...open, ...decided].sort(newestFirst);
  }, [tab, reason, tool, requester, pending.data, history.data, everything.data, decidedHere]);

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
  /** Another tab or filter is the viewer moving on: requests decided here leave the pending list. */
  const moveOn = () => {
    setSelectedId(null);
    setDecidedHere(new Set());
  };

  return (
    <div className="inbox">
      <aside className="inbox-list" aria-label="Approval requests">
        <div className="inbox-tools">
          <div className="row-top" style={{ display: "flex", justifyContent: "space-between", alignItems: "center" }}>
            <div className="tabs" role="tablist">
              <button
                type="button"
                role="tab"
                className="tab"
                aria-selected={tab === "pending"}
                onClick={() => {
                  setTab("pending");
                  moveOn();
                }}
              >
                Pending{pendingCount > 0 ? ` (${pendingCount})` : ""}
              </button>
              <button
                type="button"
                role="tab"
                className="tab"
                aria-selected={tab === "decided"}
                onClick={() => {
                  setTab("decided");
                  moveOn();
                }}
              >
                Decided
              </button>
            </div>
            <span className={live.status === "pending" ? "live" : "live off"} title="Updates arrive as they happen">
              {live.status === "pending" ? "Live" : "Connecting…"}
            </span>
          </div>
          <div className="filters">
            <select
              aria-label="Filter by reason"
              value={reason}
              onChange={(e) => {
                setReason(e.target.value as Reason | "");
                moveOn();
              }}
            >
              <option value="">All reasons</option>
              {PAUSE_REASON_LIST.map((r) => (
                <option key={r} value={r}>
                  {REASON_LABELS[r]}
                </option>
              ))}
            </select>
            <select
              aria-label="Filter by tool"
              value={tool}
              onChange={(e) => {
                setTool(e.target.value);
                moveOn();
              }}
            >
              <option value="">All tools</option>
              {tools.map((t) => (
                <option key={t} value={t}>
                  {catalog.title(t)}
                </option>
              ))}
            </select>
            <select
              aria-label="Filter by requester"
              value={requester}
              onChange={(e) => {
                setRequester(e.target.value);
                moveOn();
              }}
            >
              <option value="">Everyone</option>
              {requesters.map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </select>
          </div>
        </div>
        {current.isPending ? (
          <ul className="inbox-rows" aria-busy="true">
            {[0, 1, 2].map((n) => (
              <li key={n} className="skeleton" />
            ))}
          </ul>
        ) : current.isError ? (
          <p className="error banner" role="alert" style={{ margin: "1rem" }}>
            Could not load the requests: {current.error.message}
          </p>
        ) : rows.length === 0 ? (
          <div className="empty-state muted" style={{ padding: "2rem 1rem" }} data-testid="inbox-empty">
            {tab === "pending" ? "Nothing is waiting for a decision." : "No decisions yet."}
          </div>
        ) : (
          <ul className="inbox-rows" data-testid="inbox-rows">
            {rows.map((i) => (
              <li key={i.interactionId}>
                <button
                  type="button"
                  className="inbox-row"
                  aria-current={selected?.interactionId === i.interactionId}
                  onClick={() => setSelectedId(i.interactionId)}
                  data-testid="inbox-row"
                  data-status={i.status}
                >
                  <span className="row-top">
                    <strong>{i.message}</strong>
                    <StatusBadge status={i.status} kind={i.kind} />
                  </span>
                  <span className="muted small">
                    <ReasonBadge reason={i.pauseReason} /> {i.requester.name ?? i.requester.email} · {when(i.createdAt)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </aside>
      <section className="inbox-detail" aria-label="Request detail">
        {selected ? (
          <Detail
            key={selected.interactionId}
            interaction={selected}
            viewerId={viewerId}
            onDecided={(id) => setDecidedHere((ids) => new Set(ids).add(id))}
          />
        ) : selectedId && fetched.isPending ? (
          <p className="muted">Loading the request…</p>
        ) : (
          <p className="muted">Select a request to see it in full.</p>
        )}
      </section>
    </div>
  );
}

function Detail({ interaction, viewerId, onDecided }: { interaction: Pause; viewerId: string; onDecided(interactionId: string): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const catalog = useToolCatalog();
  const toast = useToast();
  const title = interaction.tool ? catalog.title(interaction.tool.name) : (interaction.message ?? REASON_LABELS[interaction.pauseReason]);
  // The list and this request's own record both change with a decision.
  const onSettled = () => queryClient.invalidateQueries({ queryKey: trpc.interactions.pathKey() });
  const approve = useMutation(trpc.interactions.approve.mutationOptions({ onSettled }));
  const reject = useMutation(trpc.interactions.reject.mutationOptions({ onSettled }));
  const busy = approve.isPending || reject.isPending;
  const failure = approve.error ?? reject.error;
  const own = interaction.requester.id === viewerId && interaction.policy === "approvers";
  const decide = async (approved: boolean, reason?: string) => {
    const input = { interactionId: interaction.interactionId, ...(reason ? { reason } : {}) };
    try {
      await (approved ? approve : reject).mutateAsync(input);
    } catch (error) {
      toast({ tone: "error", title: `Could not ${approved ? "approve" : "reject"}`, detail: interaction.message ?? title });
      throw error;
    }
    onDecided(interaction.interactionId);
    toast({ tone: "success", title: approved ? "Approved" : "Rejected", detail: interaction.message ?? title });
  };

  return (
    <article className={`approval-card ${toneOf(interaction.status)}`} data-testid="inbox-detail" data-status={interaction.status}>
      <header className="approval-head">
        <h2>{title}</h2>
        <StatusBadge status={interaction.status} kind={interaction.kind} />
      </header>
      <p className="muted small" style={{ margin: 0 }}>
        {interaction.message}
      </p>
      {interaction.tool ? (
        <dl className="approval-args">
          {argEntries(interaction.tool.args).map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <dl className="meta">
        <dt>Requested by</dt>
        <dd>
          {interaction.requester.name} <span className="muted">{interaction.requester.email}</span>
        </dd>
        <dt>Requested</dt>
        <dd>{when(interaction.createdAt)}</dd>
        <dt>Reason</dt>
        <dd data-testid="detail-reason">
          {REASON_LABELS[interaction.pauseReason]}
          {interaction.detail?.agent ? ` · ${interaction.detail.agent}` : ""}
        </dd>
        <dt>Who decides</dt>
        <dd>
          {interaction.kind === "oauth"
            ? "The requester, by connecting at the provider"
            : interaction.policy === "approvers"
              ? "Any approver except the requester"
              : interaction.policy === "admins"
                ? "An admin (resume from the console)"
                : "The requester"}
        </dd>
        {interaction.status === "pending" ? (
          <>
            <dt>Expires</dt>
            <dd>
              <Countdown until={interaction.expiresAt} />
            </dd>
          </>
        ) : (
          <>
            <dt>Decision</dt>
            <dd data-testid="receipt">{receipt(interaction, viewerId)}</dd>
          </>
        )}
      </dl>
      {interaction.status === "pending" && interaction.kind !== "approval" ? (
        <footer className="approval-foot">
          <p className="small muted">
            {interaction.kind === "operator" ? (
              <>
                Resumed by an admin from the <a href="/console">console</a>.
              </>
            ) : interaction.requester.id === viewerId ? (
              <>
                Answer it in <a href={`/chat/${encodeURIComponent(interaction.threadId)}`}>your conversation</a>.
              </>
            ) : (
              "Only the requester can answer this one, in their conversation."
            )}
          </p>
        </footer>
      ) : interaction.status === "pending" ? (
        <footer className="approval-foot">
          <DecisionForm
            busy={busy}
            disabledReason={
              own
                ? "You requested this, so another approver must decide (four-eyes rule)."
                : interaction.policy === "owner" && interaction.requester.id !== viewerId
                  ? "Only the requester can answer this one."
                  : undefined
            }
            onDecide={decide}
          />
          {failure ? (
            <p className="error small" role="alert">
              {failure.message}
            </p>
          ) : null}
        </footer>
      ) : null}
    </article>
  );
}

function receipt(i: InteractionView, viewerId: string): string {
  const who = i.resolvedBy ? (i.resolvedBy.id === viewerId ? "you" : (i.resolvedBy.name ?? i.resolvedBy.id)) : "nobody";
  const at = i.resolvedAt ? ` on ${when(i.resolvedAt)}` : "";
  const reason = i.decision?.reason && i.decision.reason !== "cancelled" ? ` — “${i.decision.reason}”` : "";
  switch (i.status) {
    case "resolved":
      if (i.kind === "oauth") return `Connected by ${who}${at}`;
      if (i.kind === "a2a") return `Answered by ${who}${at}`;
      if (i.kind === "operator") return `Resumed by ${who}${at}`;
      return `Approved by ${who}${at}${reason}`;
    case "rejected":
      return `Rejected by ${who}${at}${reason}`;
    case "cancelled":
      return `Cancelled by ${who}${at}`;
    case "expired":
      return `Expired${at}: nobody decided in time`;
    case "lost":
      return `Lost when Harbor restarted${at}`;
    case "pending":
      return "Pending";
  }
}
