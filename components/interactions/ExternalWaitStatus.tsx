"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { JobStatus } from "@/server/domain";
import type { ChatToolCall } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
import { HourglassIcon } from "lucide-react";
import { Badge } from "@/components/ui/Badge";
import { cn } from "@/components/ui/cn";
import { useToolCatalog } from "./tools";

const POLL_MS = 500;

/**
 * What the result appended to the thread says, until the response itself is loaded: a failed
 * job's result carries its `error`.
 */
function statusOfResult(result: string): Exclude<JobStatus, "in_progress"> {
  try {
    const parsed: unknown = JSON.parse(result);
    return parsed && typeof parsed === "object" && "error" in parsed ? "failed" : "completed";
  } catch {
    return "completed";
  }
}

/**
 * Background work in the conversation: polls its response while it is in progress (a progress bar
 * with the current step), then tells the conversation to load the result appended to the thread.
 * How the work ended is the response's to say — a result in the thread is no proof it succeeded.
 */
export function ExternalWaitStatus({
  call,
  responseId,
  result,
  onSettled,
}: {
  call: ChatToolCall;
  responseId: string;
  /** The call's result, once it is in the conversation. */
  result: string | undefined;
  onSettled(): void;
}) {
  const trpc = useTRPC();
  const tools = useToolCatalog();
  const settled = result !== undefined;
  const response = useQuery(
    trpc.responses.get.queryOptions(
      { responseId },
      { refetchInterval: (query) => (query.state.data?.status === "in_progress" ? POLL_MS : false) },
    ),
  );
  const status: JobStatus | undefined = response.data?.status ?? (settled ? statusOfResult(result) : undefined);
  const finished = status !== undefined && status !== "in_progress";
  // Told once: the conversation reloads the thread, after which `result` is set.
  const told = useRef(false);
  useEffect(() => {
    if (!finished || settled || told.current) return;
    told.current = true;
    onSettled();
  }, [finished, settled, onSettled]);

  const progress = response.data?.progress;
  const percent = status === "completed" ? 100 : progress ? Math.round((100 * progress.step) / Math.max(1, progress.total)) : 0;
  const stopped = status === "failed" || status === "cancelled";
  return (
    <div
      className="grid min-w-0 gap-2.5 rounded-xl border bg-card p-4 shadow-xs"
      data-testid="external-wait"
      data-status={status ?? "loading"}
      aria-busy={!finished}
    >
      <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-sm">
        <span className="grid size-6 shrink-0 place-items-center rounded-full bg-muted text-muted-foreground">
          <HourglassIcon className="size-3.5" aria-hidden="true" />
        </span>
        <span className="sr-only">Background</span>
        <span className="font-medium">{tools.title(call.name)}</span>
        {stopped ? <Badge tone={status === "failed" ? "danger" : "neutral"}>{status === "failed" ? "Failed" : "Cancelled"}</Badge> : null}
        <span className="min-w-0 text-muted-foreground [overflow-wrap:anywhere]" data-testid="external-wait-note">
          {response.isError
            ? `could not check on it: ${response.error.message}`
            : status === "completed"
              ? "done"
              : status === "failed"
                ? (response.data?.error?.message ?? "the work stopped with an error")
                : status === "cancelled"
                  ? "stopped before it finished"
                  : (progress?.label ?? "starting…")}
        </span>
      </div>
      {/* A failed or cancelled job stops where it was: its bar keeps that width, in its own colour. */}
      <progress
        className={cn(
          "progress-bar h-1.5 w-full appearance-none overflow-hidden rounded-full bg-muted [&::-moz-progress-bar]:rounded-full [&::-webkit-progress-bar]:bg-muted [&::-webkit-progress-value]:rounded-full [&::-webkit-progress-value]:transition-[width] [&::-webkit-progress-value]:duration-300",
          status === "failed"
            ? "failed [&::-moz-progress-bar]:bg-danger-fg [&::-webkit-progress-value]:bg-danger-fg"
            : status === "cancelled"
              ? "cancelled [&::-moz-progress-bar]:bg-neutral-fg [&::-webkit-progress-value]:bg-neutral-fg"
              : status === "completed"
                ? "completed [&::-moz-progress-bar]:bg-success-fg [&::-webkit-progress-value]:bg-success-fg"
                : "[&::-moz-progress-bar]:bg-primary [&::-webkit-progress-value]:bg-primary",
        )}
        max={100}
        value={percent}
        aria-label={`${tools.title(call.name)}: ${status === "failed" ? "failed" : status === "cancelled" ? "cancelled" : `${percent}%`}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      />
    </div>
  );
}
