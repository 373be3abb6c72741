"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { skipToken } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { refreshNow } from "@/components/trpc/refresh";
import type { InteractionView } from "@/components/trpc/types";
import { kindRules, type GrantChoice } from "@/server/domain";
import type { ResumeAnswer } from "./types";
import type { useAgentRun } from "./useAgentRun";

type Run = ReturnType<typeof useAgentRun>;

/**
 * The thread's approval gates: loaded with tRPC and refreshed as runs end; the viewer's own
 * decisions are collected until every open request they may answer has one (a resume must answer
 * them all), then sent as one resume. A gate routed to the approvers is followed live: when an
 * approver decides, the run's continuation streams into this conversation.
 */
export function useGates(threadId: string | null, viewerId: string, run: Run) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.interactions.list.queryOptions(threadId ? { threadId } : skipToken));
  const interactions = useMemo(() => list.data ?? [], [list.data]);
  const [choices, setChoices] = useState<Record<string, { approved: boolean; reason?: string; grant?: GrantChoice }>>({});

  const byToolCall = useMemo(() => {
    const map = new Map<string, InteractionView>();
    // Oldest first, so a newer interaction for the same call wins (an MCP call's question after its gate).
    for (const i of [...interactions].reverse()) if (i.toolCallId) map.set(i.toolCallId, i);
    return map;
  }, [interactions]);
  /** A call's approval gate, kept in view when the call later asked something else (an MCP server's question, a consent). */
  const gateByToolCall = useMemo(() => {
    const map = new Map<string, InteractionView>();
    for (const i of interactions) if (i.toolCallId && i.kind === "approval" && !map.has(i.toolCallId)) map.set(i.toolCallId, i);
    return map;
  }, [interactions]);
  const pending = useMemo(() => interactions.filter((i) => i.status === "pending"), [interactions]);
  // Browser-tool requests are answered by the browser itself, not by a decision here.
  const mine = pending.filter((i) => i.kind === "approval" && i.policy === "owner" && i.requester.id === viewerId);
  const routed = pending.filter((i) => i.kind === "approval" && i.policy === "approvers");
  // Paused by an operator: nothing to answer here; an admin resumes it.
  const operator = pending.filter((i) => i.kind === "operator");
  // Waiting for consent at a provider: its callback (in another window) continues the run.
  const consent = pending.filter((i) => i.kind === "oauth");

  const refresh = useCallback(() => refreshNow(queryClient, trpc.interactions.list.queryKey()), [queryClient, trpc]);

  const decide = useCallback(
    async (toolCallId: string, approved: boolean, reason?: string, grant?: GrantChoice) => {
      const gate = byToolCall.get(toolCallId);
      if (!gate) return;
      const next = { ...choices, [gate.interactionId]: { approved, ...(reason ? { reason } : {}), ...(grant ? { grant } : {}) } };
      if (!mine.every((i) => next[i.interactionId])) {
        setChoices(next);
        return;
      }
      const answers: ResumeAnswer[] = mine.map((i) => ({
        interruptId: i.interactionId,
        status: "resolved",
        payload: next[i.interactionId],
      }));
      setChoices({});
      if (routed.length === 0) {
        const { delivered } = await run.resume(answers);
        // The run shows why; the card's buttons open again for another try.
        if (!delivered) throw new Error("The decision did not reach Harbor.");
      } else {
        // An approver still has to decide the rest: an AG-UI resume must answer every open
        // interrupt, so answer ours through tRPC; the run goes on (and is followed here) once the
        // approver decided too.
        try {
          for (const answer of answers)
            await client.interactions.resume.mutate({ interactionId: answer.interruptId, status: answer.status, payload: answer.payload });
        } catch (error) {
          run.report({ message: error instanceof Error ? error.message : String(error) });
          throw error;
        }
      }
      await refresh();
    },
    [byToolCall, choices, mine, routed.length, run, refresh, client],
  );

  /**
   * The requester withdraws their own open request (cancelled: nothing gated runs). When it is the
   * thread's only open request and theirs to answer, an AG-UI resume continues the run here;
   * otherwise it is answered through tRPC and the run goes on once the rest are answered too — a
   * request routed to the approvers goes on exactly as if an approver had decided it, in the run
   * this page already follows.
   */
  const withdraw = useCallback(
    async (toolCallId: string) => {
      const open = byToolCall.get(toolCallId);
      if (!open || open.status !== "pending") return;
      const others = pending.filter((i) => i.interactionId !== open.interactionId && kindRules(i.kind).holdsThread);
      if (others.length === 0 && open.policy === "owner") {
        const { delivered } = await run.resume([{ interruptId: open.interactionId, status: "cancelled" }]);
        if (!delivered) throw new Error("The withdrawal did not reach Harbor.");
      } else {
        try {
          await client.interactions.resume.mutate({ interactionId: open.interactionId, status: "cancelled" });
        } catch (error) {
          run.report({ message: error instanceof Error ? error.message : String(error) });
          throw error;
        }
      }
      setChoices((c) => Object.fromEntries(Object.entries(c).filter(([id]) => id !== open.interactionId)));
      await refresh();
    },
    [byToolCall, pending, run, client, refresh],
  );

  /**
   * Answers the call's open request alone (a private form, a remote agent's question, a cancel).
   * A private answer travels in a resume of its own, without the transcript, and is then forgotten.
   */
  const answerAlone = useCallback(
    async (toolCallId: string, answer: Omit<ResumeAnswer, "interruptId">, options: { privately?: boolean } = {}) => {
      const open = byToolCall.get(toolCallId);
      if (!open) return;
      await run.resume([{ interruptId: open.interactionId, ...answer }], options);
      await refresh();
    },
    [byToolCall, run, refresh],
  );

  // Follow the run an approver must continue, until it ends (not just until the gate is decided):
  // skip what is already shown, up to the pause.
  const [followed, setFollowed] = useState<{ runId: string; interactionId: string; kind: string } | null>(null);
  // The request whose run was followed to its end: a list not yet refreshed still shows it open,
  // and following it again would replay (and once showed twice) the run's reply.
  const [followedToEnd, setFollowedToEnd] = useState<string | null>(null);
  const waitingOn = routed[0] ?? operator[0] ?? consent[0];
  if (waitingOn && followed?.interactionId !== waitingOn.interactionId && followedToEnd !== waitingOn.interactionId) {
    setFollowed({ runId: waitingOn.runId, interactionId: waitingOn.interactionId, kind: waitingOn.kind });
  }
  // Events up to the pause being waited on are already shown; later ones are new to this
  // conversation. The subscription resumes after the last seq seen when it reconnects
  // (Last-Event-ID), so the pause's seq is kept for as long as this run is followed.
  const { apply, note } = run;
  useEffect(() => {
    if (!followed) return;
    let pausedAtSeq: number | null = null;
    const subscription = client.runs.events.subscribe(
      { runId: followed.runId },
      {
        onData: ({ data: { event, seq } }) => {
          if (pausedAtSeq === null) {
            if (event.type === "run.paused" && event.interrupts.some((i) => i.id === followed.interactionId)) pausedAtSeq = seq;
            return;
          }
          if (seq <= pausedAtSeq) return;
          apply(event);
          if (event.type === "pause.resumed") {
            if (followed.kind === "operator" && event.pauseId === followed.interactionId) note("Resumed by an operator: the run goes on.");
            void refresh();
          }
          if (event.type === "run.completed" || event.type === "run.failed" || event.type === "run.paused") {
            setFollowedToEnd(followed.interactionId);
            setFollowed(null);
            void refresh();
          }
        },
      },
    );
    return () => subscription.unsubscribe();
  }, [client, followed, apply, note, refresh]);

  // Decisions taken elsewhere (an approver, another tab) refresh the cards.
  useSubscription(trpc.interactions.events.subscriptionOptions(threadId ? undefined : skipToken, { onData: () => void refresh() }));

  return {
    byToolCall,
    gateByToolCall,
    pending,
    /** New messages wait while a request that holds the thread is open; background work (an external wait) does not. */
    blocking: pending.some((i) => kindRules(i.kind).holdsThread),
    /** The open requests that hold the thread. */
    blockers: pending.filter((i) => kindRules(i.kind).holdsThread),
    waitingForOthers: mine.length === 0 && routed.length > 0,
    operatorPause: operator[0],
    chosen: (toolCallId: string) => {
      const gate = byToolCall.get(toolCallId);
      return gate ? choices[gate.interactionId] : undefined;
    },
    decide,
    withdraw,
    answerAlone,
    refresh,
  };
}
