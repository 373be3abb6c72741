"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPCClient } from "@/components/trpc/client";
import type { RunEvent } from "@/server/domain";
import { stopsRun, type LatestRun } from "./run-events";
import type { ChatMessage } from "./types";

/** How long to wait before the next try to reach the server: doubling from 1 s, at most 10 s. */
export const backoffMs = (attempt: number) => Math.min(10_000, 1_000 * 2 ** Math.min(attempt, 4));

export interface FollowTarget {
  /** Applies one logged event of the run (idempotently: the log is read from its start). */
  apply(event: RunEvent): void;
  /** The server's record of the conversation, read before the runs' logs. */
  replaceMessages(messages: ChatMessage[]): void;
  /**
   * How the conversation's latest run stands. A run can end while the page does not follow it —
   * its instance died while the page was offline, and the instance that came back failed it before
   * the page asked again — so its end is read from here, not only from its log.
   */
  showLatestRun(run: LatestRun | null): void;
  /** Whether this page shows a run working (Stop offered). */
  setFollowing(following: boolean): void;
  /** A run stopped executing (ended, or waits on someone): the thread's requests may have changed. */
  onRunStopped(): void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Attaches a page to its conversation's live runs: it reads the thread (its messages and the runs
 * still queued or running), then each run's event log from the start and live after that, until
 * none is left. A server that cannot be reached meanwhile makes the page `offline`; it tries again
 * with growing pauses and catches up from the log when the server is back (the subscription
 * resumes after the last event it saw; a fresh attach replays idempotently).
 */
export function useRunFollow(target: FollowTarget) {
  const client = useTRPCClient();
  const [offline, setOffline] = useState(false);
  const [attachedTo, setAttachedTo] = useState<string | null>(null);
  const current = useRef<AbortController | null>(null);
  const latest = useRef(target);
  useEffect(() => {
    latest.current = target;
  });

  /** Follows one run's log until it stops executing; throws when the feed failed for good. */
  const followRun = useCallback(
    (runId: string, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        const subscription = client.runs.events.subscribe(
          { runId },
          {
            onData: ({ data: { event } }) => {
              latest.current.apply(event);
              if (stopsRun(event)) {
                subscription.unsubscribe();
                latest.current.onRunStopped();
                resolve();
              }
            },
            onConnectionStateChange: (state) => {
              if (state.state === "connecting" && state.error) setOffline(true);
              if (state.state === "pending") setOffline(false);
            },
            onError: (error) => reject(error),
            onComplete: () => resolve(),
          },
        );
        signal.addEventListener("abort", () => (subscription.unsubscribe(), resolve()), { once: true });
      }),
    [client],
  );

  const attach = useCallback(
    (threadId: string) => {
      current.current?.abort();
      const controller = new AbortController();
      current.current = controller;
      const { signal } = controller;
      setAttachedTo(threadId);
      void (async () => {
        let attempt = 0;
        while (!signal.aborted) {
          try {
            const { messages, liveRunIds, latestRun } = await client.threads.get.query({ threadId }, { signal });
            if (signal.aborted) return;
            setOffline(false);
            attempt = 0;
            latest.current.replaceMessages(messages.map(toChatMessage));
            latest.current.showLatestRun(latestRun);
            if (liveRunIds.length === 0) break;
            latest.current.setFollowing(true);
            for (const runId of liveRunIds) await followRun(runId, signal);
            // Read the thread again: the runs' final messages, and any run queued meanwhile (a
            // moment later: a run's status is written just after its last event).
            await sleep(200, signal);
          } catch (error) {
            if (signal.aborted) return;
            // A refusal (the thread is gone, or not this user's) is not retried.
            if (isRefusal(error)) break;
            setOffline(true);
            await sleep(backoffMs(attempt++), signal);
          }
        }
        if (!signal.aborted) {
          latest.current.setFollowing(false);
          setAttachedTo(null);
        }
      })();
    },
    [client, followRun],
  );

  useEffect(() => () => current.current?.abort(), []);

  return { offline, attach, attached: attachedTo !== null };
}

type StoredMessage = Omit<ChatMessage, "toolCalls" | "toolCallId"> & {
  toolCalls: ChatMessage["toolCalls"] | null;
  toolCallId: string | null;
};

function toChatMessage({ id, role, content, toolCalls, toolCallId }: StoredMessage): ChatMessage {
  return { id, role, content, ...(toolCalls ? { toolCalls } : {}), ...(toolCallId ? { toolCallId } : {}) };
}

/** An answer of the server that trying again will not change (as opposed to no answer at all). */
function isRefusal(error: unknown): boolean {
  if (!error || typeof error !== "object" || !("data" in error)) return false;
  const data = (error as { data?: { code?: string } | null }).data;
  return data?.code === "NOT_FOUND" || data?.code === "FORBIDDEN" || data?.code === "UNAUTHORIZED";
}
