"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeftIcon, ListTreeIcon, ServerCogIcon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { PAUSE_REASON_LIST, REASON_LABELS, ReasonBadge } from "@/components/interactions/reasons";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Select } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import type { PauseReason } from "@/server/domain";
import { RunDetail } from "./RunDetail";
import { RunStatusBadge } from "./RunStatusBadge";

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
  // Phones show the runs or one run: picking a run opens it, Back returns to the list.
  const [phoneDetail, setPhoneDetail] = useState(false);
  const detailPane = useRef<HTMLElement>(null);
  useEffect(() => {
    if (phoneDetail && window.matchMedia("(max-width: 1023px)").matches) detailPane.current?.focus();
  }, [phoneDetail]);
  const open = (runId: string) => {
    setSelected(runId);
    setPhoneDetail(true);
  };

  const th = "px-3 py-2 text-left text-xs font-medium text-muted-foreground";
  const td = "px-3 py-2.5 align-middle";
  return (
    <div className="flex min-h-0 flex-1">
      <section className={cn("min-w-0 flex-1 flex-col lg:flex", phoneDetail ? "hidden" : "flex")} aria-label="Runs">
        <div className="grid gap-3 border-b p-3 sm:p-4">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
            <h1 className="text-base font-semibold tracking-tight">Runs</h1>
            <p className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground" data-testid="scheduler">
              <ServerCogIcon className="size-3.5 shrink-0" aria-hidden="true" />
              <span className="min-w-0 [overflow-wrap:anywhere]">
                Scheduler: {queue.data ? `${queue.data.active} of ${queue.data.maxActive} running, ${queue.data.queue.length} queued` : "…"}
                {queue.data?.queue.length
                  ? ` — next: ${queue.data.queue.map((q) => `${q.runId.slice(0, 8)} (p${q.priority})`).join(", ")}`
                  : ""}
              </span>
            </p>
          </div>
          <div className="grid grid-cols-2 gap-2 sm:flex">
            <Select
              aria-label="Filter by status"
              value={status}
              className="sm:w-44"
              onChange={(e) => setStatus(e.target.value as typeof status)}
            >
              <option value="">All statuses</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
            <Select
              aria-label="Filter by pause reason"
              value={reason}
              className="sm:w-48"
              onChange={(e) => setReason(e.target.value as typeof reason)}
            >
              <option value="">Any pause reason</option>
              {PAUSE_REASON_LIST.map((r) => (
                <option key={r} value={r}>
                  {REASON_LABELS[r]}
                </option>
              ))}
            </Select>
          </div>
        </div>
        <div className="min-h-0 flex-1 overflow-auto">
          {runs.isPending ? (
            <div className="grid gap-2 p-4" aria-busy="true" aria-label="Loading runs">
              {[0, 1, 2, 3].map((n) => (
                <Skeleton key={n} className="h-10" />
              ))}
            </div>
          ) : runs.isError ? (
            <ErrorAlert className="m-4">Could not load runs: {runs.error.message}</ErrorAlert>
          ) : runs.data.length === 0 ? (
            <EmptyState icon={ListTreeIcon} title="No runs match." data-testid="runs-empty">
              Runs appear here as soon as anyone in your organisation talks to an agent.
            </EmptyState>
          ) : (
            <table className="w-full border-collapse text-sm" data-testid="runs-table">
              <thead className="sticky top-0 z-10 bg-background shadow-[inset_0_-1px_0_var(--border)]">
                <tr>
                  <th className={th}>Run</th>
                  <th className={th}>Status</th>
                  <th className={th}>Owner</th>
                  <th className={cn(th, "hidden sm:table-cell")}>Agent</th>
                  <th className={cn(th, "hidden text-right sm:table-cell")}>Priority</th>
                  <th className={cn(th, "text-right")}>Age</th>
                  <th className={cn(th, "hidden text-right sm:table-cell")}>Helpers</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.map((run) => (
                  <tr
                    key={run.runId}
                    className={cn(
                      "cursor-pointer border-b transition-colors hover:bg-accent",
                      selected === run.runId && "bg-primary-soft hover:bg-primary-soft",
                    )}
                    onClick={() => open(run.runId)}
                    data-testid="run-row"
                    data-run-id={run.runId}
                    data-thread-id={run.threadId}
                    data-parent-run-id={run.parentRunId ?? ""}
                    data-status={run.status}
                  >
                    <td className={td}>
                      <button
                        type="button"
                        className="cursor-pointer rounded font-mono text-xs font-medium text-primary underline-offset-2 hover:underline"
                        aria-current={selected === run.runId}
                        onClick={(e) => {
                          e.stopPropagation();
                          open(run.runId);
                        }}
                      >
                        {run.parentRunId ? (
                          <span className="text-muted-foreground" aria-hidden="true">
                            ↳{" "}
                          </span>
                        ) : null}
                        {run.runId.slice(0, 8)}
                      </button>
                    </td>
                    <td className={td}>
                      <span className="flex flex-wrap items-center gap-1">
                        <RunStatusBadge status={run.status} />
                        {run.pauseReason ? <ReasonBadge reason={run.pauseReason} /> : null}
                      </span>
                    </td>
                    <td className={cn(td, "max-w-32 truncate")}>{run.ownerName ?? run.ownerId}</td>
                    <td className={cn(td, "hidden text-muted-foreground sm:table-cell")}>{run.agentId}</td>
                    <td className={cn(td, "hidden text-right tabular-nums sm:table-cell")}>{run.priority}</td>
                    <td className={cn(td, "text-right text-muted-foreground tabular-nums")}>{age(run.createdAt)}</td>
                    <td className={cn(td, "hidden text-right tabular-nums sm:table-cell")}>{run.childCount || "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </section>
      <section
        ref={detailPane}
        tabIndex={-1}
        className={cn(
          "min-w-0 flex-1 overflow-y-auto bg-surface outline-none lg:block lg:w-[30rem] lg:flex-none lg:border-l xl:w-[34rem]",
          phoneDetail ? "block" : "hidden",
        )}
        aria-label="Run detail"
      >
        <div className="grid gap-3 p-3 sm:p-5">
          {/* The list (and its heading) is hidden on narrow screens while a run shows. */}
          <h1 className="sr-only lg:hidden">Runs</h1>
          <Button variant="ghost" size="sm" className="justify-self-start lg:hidden" onClick={() => setPhoneDetail(false)}>
            <ArrowLeftIcon aria-hidden="true" />
            Back to runs
          </Button>
          {selected ? (
            <RunDetail key={selected} runId={selected} />
          ) : (
            <EmptyState icon={ListTreeIcon} title="Select a run to see its timeline and steer it." />
          )}
        </div>
      </section>
    </div>
  );
}
