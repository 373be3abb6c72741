"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { ChatToolCall } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
import { useToolCatalog } from "./tools";

const POLL_MS = 500;

/**
 * Background work in the conversation: polls its response while it is in progress (a progress bar
 * with the current step), then tells the conversation to load the result appended to the thread.
 */
export function ExternalWaitStatus({
  call,
  responseId,
  settled,
  onSettled,
}: {
  call: ChatToolCall;
  responseId: string;
  /** The result is already in the conversation. */
  settled: boolean;
  onSettled(): void;
}) {
  const trpc = useTRPC();
  const tools = useToolCatalog();
  const response = useQuery(
    trpc.responses.get.queryOptions(
      { responseId },
      { refetchInterval: (query) => (query.state.data?.status === "in_progress" ? POLL_MS : false), enabled: !settled },
    ),
  );
  const status = settled ? "completed" : response.data?.status;
  const finished = status !== undefined && status !== "in_progress";
  // Told once: the conversation reloads the thread, after which `settled` holds.
  const told = useRef(false);
  useEffect(() => {
    if (!finished || settled || told.current) return;
    told.current = true;
    onSettled();
  }, [finished, settled, onSettled]);

  const progress = response.data?.progress;
  const percent = status === "completed" ? 100 : progress ? Math.round((100 * progress.step) / Math.max(1, progress.total)) : 0;
  return (
    <div className="external-wait" data-testid="external-wait" data-status={status ?? "loading"} aria-busy={!finished}>
      <div className="external-wait-head">
        <span className="tool-note-kind">Background</span>
        <span className="tool-note-title">{tools.title(call.name)}</span>
        <span className="muted small">
          {response.isError
            ? `could not check on it: ${response.error.message}`
            : status === "completed"
              ? "done"
              : status === "failed"
                ? `failed: ${response.data?.error?.message ?? "unknown error"}`
                : status === "cancelled"
                  ? "cancelled"
                  : (progress?.label ?? "starting…")}
        </span>
      </div>
      <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div
          className={`progress-bar ${status === "failed" ? "failed" : ""}`}
          style={{ width: `${status === "failed" ? 100 : percent}%` }}
        />
      </div>
    </div>
  );
}
