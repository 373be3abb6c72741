"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeftIcon, CoinsIcon, ListTreeIcon, SearchIcon, ServerCogIcon } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { PAUSE_REASON_LIST, REASON_LABELS, ReasonBadge } from "@/components/interactions/reasons";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Input, Select } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import type { RouterOutputs } from "@/components/trpc/types";
import { RUN_STATUSES } from "@/server/domain";
import { duration, relative, tokens } from "./format";
import { RunDetail } from "./RunDetail";
import { RunStatusBadge } from "./RunStatusBadge";
import { listInput, runFilters } from "./runFilters";
import { useLiveRunList } from "./useLiveRunList";

type Run = RouterOutputs["runs"]["list"][number];

/** Helpers right under their parent (newest parents first); a helper whose parent is not listed stands alone. */
function nested(runs: Run[]): { run: Run; depth: number }[] {
  const listed = new Set(runs.map((r) => r.runId));
  const children = new Map<string, Run[]>();
  for (const r of runs)
    if (r.parentRunId && listed.has(r.parentRunId)) children.set(r.parentRunId, [...(children.get(r.parentRunId) ?? []), r]);
  const out: { run: Run; depth: number }[] = [];
  const visit = (r: Run, depth: number) => {
    out.push({ run: r, depth });
    for (const c of [...(children.get(r.runId) ?? [])].reverse()) visit(c, depth + 1);
  };
  for (const r of runs) if (!r.parentRunId || !listed.has(r.parentRunId)) visit(r, 0);
  return out;
}

/** What a row says about its run: its own input (and the goal an operator redirected it to). */
function runLabel(run: Run): string {
  const input = run.input ?? run.threadTitle ?? "—";
  return run.goal ? `${input} → goal: ${run.goal}` : input;
}

/**
 * The operator console: every run of the tenant, live, with filters; a run's timeline and the nine
 * instructions; the scheduler's queue. It calls only the public tRPC procedures any client can.
 */
export function Console({ initial }: { initial?: { input: ReturnType<typeof listInput>; runs: Run[] } }) {
  const trpc = useTRPC();
  // Filters and search live in the URL: a filtered view can be shared, reloaded and gone back to.
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const { status, reason, q } = runFilters((key) => params.get(key));
  const input = listInput({ status, reason, q });
  const [search, setSearch] = useState(q);
  const setParam = (key: string, value: string) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    const query = next.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  // Typing searches after a short pause, not at every key.
  useEffect(() => {
    if (search.trim() === q) return;
    const timer = setTimeout(() => setParam("q", search.trim()), 300);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the typed text starts a search
  }, [search]);
  const [selected, setSelected] = useState<string | null>(null);
  // The list follows the server's feed of run changes; a poll stands in while the feed is down,
  // and a slow one covers runs another instance executes (their changes reach this one's feed only when watched).
  const live = useLiveRunList();
  const poll = live ? 15_000 : 3000;
  // The first list comes with the page (loaded on the server for the URL's filters): no wait for it.
  const [first] = useState(initial);
  const runs = useQuery(
    trpc.runs.list.queryOptions(input, {
      refetchInterval: poll,
      ...(first && JSON.stringify(first.input) === JSON.stringify(input) ? { initialData: first.runs } : {}),
    }),
  );
  const rows = useMemo(() => nested(runs.data ?? []), [runs.data]);
  const queue = useQuery(trpc.runs.queue.queryOptions(undefined, { refetchInterval: poll }));
  // Tokens models spent on the tenant's runs in the last 30 days (fixed per page load, so the query key stays put).
  const [usageSince] = useState(() => new Date(Date.now() - 30 * 24 * 3600_000).toISOString());
  const usage = useQuery(trpc.runs.usage.queryOptions({ since: usageSince }, { refetchInterval: 15_000 }));
  // Phones show the runs or one run: picking a run opens it at its own address (`/console/runs/<id>`,
  // without a navigation), and Back — the browser's or ours — returns to the list.
  const phoneDetail = pathname.startsWith("/console/runs/");
  const detailPane = useRef<HTMLElement>(null);
  useEffect(() => {
    if (phoneDetail && window.matchMedia("(max-width: 1023px)").matches) detailPane.current?.focus();
  }, [phoneDetail]);
  const open = (runId: string) => {
    setSelected(runId);
    if (window.matchMedia("(max-width: 1023px)").matches) window.history.pushState(null, "", `/console/runs/${encodeURIComponent(runId)}`);
  };

  const th = "px-2 py-2 text-left text-xs font-medium text-muted-foreground sm:px-3";
  const td = "px-2 py-2.5 align-middle sm:px-3";
  return (
    <div className="flex min-h-0 flex-1">
      <section className={cn("min-w-0 flex-1 flex-col lg:flex", phoneDetail ? "hidden" : "flex")} aria-label="Runs">
        <div className="grid gap-3 border-b p-3 sm:p-4">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
            <h1 className="text-base font-semibold tracking-tight">Runs</h1>
            {/* Your organisation's runs only; the capacity is the serving process's, shared by all. */}
            <p
              className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground"
              data-testid="scheduler"
              data-active={queue.data?.active}
              data-queued={queue.data?.queue.length}
            >
              <ServerCogIcon className="size-3.5 shrink-0" aria-hidden="true" />
              <span className="min-w-0 [overflow-wrap:anywhere]">
                Scheduler:{" "}
                {queue.data
                  ? `${queue.data.active} running, ${queue.data.queue.length} queued · room for ${queue.data.maxActive} at once`
                  : queue.isError
                    ? "unavailable"
                    : "…"}
                {queue.data?.queue.length
                  ? ` — next: ${queue.data.queue.map((q) => `${q.runId.slice(0, 8)} (p${q.priority})`).join(", ")}`
                  : ""}
              </span>
            </p>
            <p className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground" data-testid="tenant-usage">
              <CoinsIcon className="size-3.5 shrink-0" aria-hidden="true" />
              {usage.data
                ? `Model tokens, last 30 days: ${usage.data.inputTokens.toLocaleString("en")} in · ${usage.data.outputTokens.toLocaleString("en")} out (${usage.data.runs} run${usage.data.runs === 1 ? "" : "s"})`
                : usage.isError
                  ? "Model tokens: unavailable"
                  : "Model tokens: …"}
            </p>
          </div>
          <div className="grid grid-cols-2 gap-2 sm:flex">
            <label className="relative col-span-2 sm:w-64">
              <span className="sr-only">Search runs</span>
              <SearchIcon
                className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground"
                aria-hidden="true"
              />
              <Input
                type="search"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
                placeholder="Search runs…"
                className="pl-8"
                data-testid="runs-search"
              />
            </label>
            <Select aria-label="Filter by status" value={status} className="sm:w-44" onChange={(e) => setParam("status", e.target.value)}>
              <option value="">All statuses</option>
              {RUN_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
            <Select
              aria-label="Filter by pause reason"
              value={reason}
              className="sm:w-48"
              onChange={(e) => setParam("reason", e.target.value)}
            >
              <option value="">Any reason</option>
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
            <div className="grid gap-2 p-4" role="status" aria-busy="true" aria-label="Loading runs">
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
                  <th className={cn(th, "hidden 2xl:table-cell")}>Input</th>
                  <th className={th}>Status</th>
                  <th className={th}>Owner</th>
                  <th className={cn(th, "hidden sm:table-cell")}>Agent</th>
                  <th className={cn(th, "text-right")}>Started</th>
                  <th className={cn(th, "hidden text-right md:table-cell")}>Duration</th>
                  <th className={cn(th, "hidden text-right md:table-cell")}>Tokens</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ run, depth }) => (
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
                        {depth > 0 ? (
                          <span className="text-muted-foreground" style={{ paddingLeft: `${(depth - 1) * 0.75}rem` }} aria-hidden="true">
                            ↳{" "}
                          </span>
                        ) : run.parentRunId ? (
                          <span className="text-muted-foreground" aria-hidden="true">
                            ↳{" "}
                          </span>
                        ) : null}
                        {run.runId.slice(0, 8)}
                        {depth > 0 ? <span className="sr-only"> (helper of {run.parentRunId?.slice(0, 8)})</span> : null}
                      </button>
                      <span
                        className="line-clamp-2 max-w-32 text-xs text-muted-foreground [overflow-wrap:anywhere] sm:max-w-52 2xl:hidden"
                        title={runLabel(run)}
                        data-testid="run-label"
                      >
                        {runLabel(run)}
                      </span>
                    </td>
                    <td className={cn(td, "hidden max-w-56 truncate 2xl:table-cell")} title={runLabel(run)}>
                      {runLabel(run)}
                    </td>
                    <td className={td}>
                      <span className="flex flex-wrap items-center gap-1">
                        <RunStatusBadge status={run.status} />
                        {run.pauseReason ? <ReasonBadge reason={run.pauseReason} /> : null}
                        {run.error ? (
                          <span className="text-xs text-danger-fg" title={run.error.message}>
                            {run.error.code}
                          </span>
                        ) : null}
                      </span>
                    </td>
                    <td className={cn(td, "max-w-32 truncate")}>{run.ownerName ?? run.ownerId}</td>
                    <td className={cn(td, "hidden text-muted-foreground sm:table-cell")}>{run.agentId}</td>
                    <td className={cn(td, "text-right whitespace-nowrap text-muted-foreground tabular-nums")}>
                      {/* The first rows are rendered on the server: its clock, locale and time zone are not the browser's. */}
                      <time dateTime={run.createdAt} title={new Date(run.createdAt).toLocaleString()} suppressHydrationWarning>
                        {relative(run.createdAt).replace(" ago", "")}
                        <span className="hidden sm:inline"> ago</span>
                      </time>
                    </td>
                    <td className={cn(td, "hidden text-right whitespace-nowrap tabular-nums md:table-cell")} suppressHydrationWarning>
                      {duration(run.createdAt, run.finishedAt)}
                    </td>
                    <td
                      className={cn(td, "hidden text-right whitespace-nowrap tabular-nums md:table-cell")}
                      title={`${run.usage.inputTokens} input, ${run.usage.outputTokens} output tokens`}
                    >
                      {run.usage.inputTokens + run.usage.outputTokens ? tokens(run.usage.inputTokens + run.usage.outputTokens) : "—"}
                    </td>
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
          <Button variant="ghost" size="sm" className="justify-self-start lg:hidden" onClick={() => window.history.back()}>
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
