"use client";

import { useCallback, useRef, useState } from "react";
import { useTRPCClient } from "@/components/trpc/client";
import type { RunFailure } from "./run-events";

/**
 * The owner's Stop: CANCEL to the thread's live run(s); the run's own notice then says it was
 * cancelled. A Stop holds until the run ends; the next run starts without it. `conversation`
 * holds the thread a new conversation was given before its address shows in the page's props.
 */
export function useStopRun(threadId: string | null, viewerId: string, run: { running: boolean; report(failure: RunFailure): void }) {
  const client = useTRPCClient();
  const [requested, setRequested] = useState(false);
  const conversation = useRef<string | null>(threadId);
  const { running, report } = run;
  // A run that ended takes its Stop with it.
  const [wasRunning, setWasRunning] = useState(running);
  if (wasRunning !== running) {
    setWasRunning(running);
    if (!running) setRequested(false);
  }

  const stop = useCallback(async () => {
    const id = threadId ?? conversation.current;
    if (!id) return;
    setRequested(true);
    try {
      const live = (await Promise.all([client.runs.list.query({ status: "running" }), client.runs.list.query({ status: "queued" })]))
        .flat()
        .filter((r) => r.threadId === id && r.ownerId === viewerId && !r.parentRunId);
      if (live.length === 0) throw new Error("The run already ended.");
      for (const r of live) await client.runs.steer.mutate({ runId: r.runId, instruction: { type: "CANCEL" } });
    } catch (error) {
      setRequested(false);
      report({ message: `Could not stop the run: ${error instanceof Error ? error.message : String(error)}` });
    }
  }, [client, threadId, viewerId, report]);

  /** The thread of this conversation: the page's, else the one its first message was given. */
  const thread = useCallback(
    (fresh: () => string) => {
      conversation.current ??= threadId ?? fresh();
      return conversation.current;
    },
    [threadId],
  );

  return { stopping: requested && running, stop, thread };
}
