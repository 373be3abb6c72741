"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { refreshNow } from "@/components/trpc/refresh";
import type { RunFailure } from "./run-events";
import type { ChatMessage } from "./types";
import type { useAgentRun } from "./useAgentRun";

type Run = ReturnType<typeof useAgentRun>;

/**
 * Edit-and-resend and Regenerate (tRPC `threads.edit` / `threads.regenerate`): the server rewinds
 * the conversation and starts a run from there, which this page then follows like any live run of
 * the thread. One message is edited at a time; while a request is on its way nothing more is sent.
 */
export function useRewind(threadId: string | null, run: Run) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  /** The message being edited. */
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The state above redraws the buttons; this ref stops a double click, whose second click comes
  // before that redraw (it would be refused by the server, and show an error over a rewind that went).
  const onItsWay = useRef(false);
  const { messages, rewound, report } = run;

  /** Sends one rewind; on success the conversation shows `kept` and follows the new run. True when it went. */
  const rewind = useCallback(
    async (call: (threadId: string) => Promise<{ threadId: string; messageId?: string }>, kept: (messageId?: string) => ChatMessage[]) => {
      if (!threadId || onItsWay.current) return false;
      onItsWay.current = true;
      setBusy(true);
      try {
        const done = await call(threadId);
        rewound(done.threadId, kept(done.messageId));
        // The conversation moved in the list (touched now), and its requests may have changed.
        void queryClient.invalidateQueries({ queryKey: trpc.threads.list.queryKey() });
        void refreshNow(queryClient, trpc.interactions.list.queryKey());
        return true;
      } catch (error) {
        report(failureOf(error));
        return false;
      } finally {
        onItsWay.current = false;
        setBusy(false);
      }
    },
    [threadId, rewound, report, queryClient, trpc],
  );

  /** Replaces the user's message `messageId` (and everything after it) with `text`, and asks again. */
  const edit = useCallback(
    async (messageId: string, text: string) => {
      const index = messages.findIndex((m) => m.id === messageId);
      const went = await rewind(
        (id) => client.threads.edit.mutate({ threadId: id, messageId, text }),
        (newId) => [...messages.slice(0, index), { id: newId ?? `edited-${messageId}`, role: "user", content: text }],
      );
      if (went) setEditing(null);
    },
    [messages, rewind, client],
  );

  /** Replaces the conversation's last reply `messageId` with a new answer to the same message. */
  const regenerate = useCallback(
    async (messageId: string) => {
      const index = messages.findIndex((m) => m.id === messageId);
      const asked = messages.slice(0, index).findLastIndex((m) => m.role === "user");
      await rewind(
        (id) => client.threads.regenerate.mutate({ threadId: id, messageId }),
        () => messages.slice(0, asked + 1),
      );
    },
    [messages, rewind, client],
  );

  /** Leaves the editor as it was; the focus goes back to the message's Edit button (keyboard users go on from there). */
  const stopEditing = useCallback(() => {
    const id = editing;
    setEditing(null);
    requestAnimationFrame(() =>
      document.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(id ?? "")}"] button[aria-label="Edit"]`)?.focus(),
    );
  }, [editing]);

  return { editing, startEditing: setEditing, stopEditing, busy, edit, regenerate };
}

/** What the server said, with its code (RUN_IN_PROGRESS, NOT_FOUND, …) when it gave one. */
function failureOf(error: unknown): RunFailure {
  const message = error instanceof Error ? error.message : String(error);
  const data = error && typeof error === "object" && "data" in error ? (error as { data?: { harborCode?: string } | null }).data : null;
  return { message, ...(data?.harborCode ? { code: data.harborCode } : {}) };
}
