"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { PAUSE_REASON_LIST, REASON_LABELS, ReasonBadge } from "@/components/interactions/reasons";
import { useTRPC } from "@/components/trpc/client";
import type { PauseReason } from "@/server/domain";
import { RunDetail } from "./RunDetail";

const STATUSES = ["queued", "running", "paused", "completed", "failed", "cancelled", "rejected", "expired", "lost"] as const;

function age(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h`;
}

/**
 * The operator console: every run of the tenant, live, with filters; a run's timeline and the nine
 * instructions; the scheduler's queue. It calls only the public tRPC procedures any client can.
 */
export function Console() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<(typeof STATUSES)[number] | "">("");
  const [reason, setReason] = useState<PauseReason | "">("");
  const [selected, setSelected] = useState<string | null>(null);
  const runs = useQuery(
    trpc.runs.list.queryOptions({ ...(status ? { status } : {}), ...(reason ? { reason } : {}) }, { refetchInterval: 1000 }),
  );
  const queue = useQuery(trpc.runs.queue.queryOptions(undefined, { refetchInterval: 1000 }));

  return (
    <div className="console">
      <section className="console-runs" aria-label="Runs">
        <div className="inbox-tools">
          <div className="filters">
            <select aria-label="Filter by status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="">All statuses</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
            <select aria-label="Filter by pause reason" value={reason} onChange={(e) => setReason(e.target.value as typeof reason)}>
              <option value="">Any pause reason</option>
              {PAUSE_REASON_LIST.map((r) => (
                <option key={r} value={r}>
                  {REASON_LABELS[r]}
                </option>
              ))}
            </select>
          </div>
          <p className="muted small" style={{ margin: 0 }} data-testid="scheduler">
            Scheduler: {queue.data ? `${queue.data.active} of ${queue.data.maxActive} running, ${queue.data.queue.length} queued` : "…"}
            {queue.data?.queue.length
              ? ` — next: ${queue.data.queue.map((q) => `${q.runId.slice(0, 8)} (p${q.priority})`).join(", ")}`
              : ""}
          </p>
        </div>
        {runs.isPending ? (
          <p className="muted" style={{ padding: "1rem" }}>
            Loading runs…
          </p>
        ) : runs.isError ? (
          <p className="error banner" role="alert" style={{ margin: "1rem" }}>
            Could not load runs: {runs.error.message}
          </p>
        ) : runs.data.length === 0 ? (
          <p className="muted" style={{ padding: "1rem" }} data-testid="runs-empty">
            No runs match.
          </p>
        ) : (
          <table className="runs-table" data-testid="runs-table">
            <thead>
              <tr>
                <th>Status</th>
                <th>Reason</th>
                <th>Priority</th>
                <th>Owner</th>
                <th>Agent</th>
                <th>Age</th>
                <th>Children</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((run) => (
                <tr
                  key={run.runId}
                  aria-selected={selected === run.runId}
                  onClick={() => setSelected(run.runId)}
                  data-testid="run-row"
                  data-run-id={run.runId}
                  data-thread-id={run.threadId}
                  data-parent-run-id={run.parentRunId ?? ""}
                  data-status={run.status}
                >
                  <td>
                    <span className={`badge status-${run.status}`}>{run.status}</span>
                  </td>
                  <td>{run.pauseReason ? <ReasonBadge reason={run.pauseReason} /> : "—"}</td>
                  <td>{run.priority}</td>
                  <td>{run.ownerName ?? run.ownerId}</td>
                  <td>{run.agentId}</td>
                  <td>{age(run.createdAt)}</td>
                  <td>{run.childCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="console-detail" aria-label="Run detail">
        {selected ? <RunDetail key={selected} runId={selected} /> : <p className="muted">Select a run to see its timeline and steer it.</p>}
      </section>
    </div>
  );
}
