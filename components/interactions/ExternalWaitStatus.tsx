"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { JobStatus } from "@/server/domain";
import type { ChatToolCall } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
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
  return (
    <div
      className={`external-wait ${status ?? "loading"}`}
      data-testid="external-wait"
      data-status={status ?? "loading"}
      aria-busy={!finished}
    >
      <div className="external-wait-head">
        <span className="tool-note-kind">Background</span>
        <span className="tool-note-title">{tools.title(call.name)}</span>
        {status === "failed" || status === "cancelled" ? (
          <span className={`badge badge-${status === "failed" ? "rejected" : "cancelled"}`}>
            {status === "failed" ? "Failed" : "Cancelled"}
          </span>
        ) : null}
        <span className="muted small" data-testid="external-wait-note">
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
      <div
        className="progress"
        role="progressbar"
        aria-label={`${tools.title(call.name)}: ${status === "failed" ? "failed" : status === "cancelled" ? "cancelled" : `${percent}%`}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        {/* A failed or cancelled job stops where it was: its bar keeps that width, in its own colour. */}
        <div className={`progress-bar ${status ?? ""}`} style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
