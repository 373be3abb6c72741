"use client";

import { HttpAgent, type Message } from "@ag-ui/client";
import { useCallback, useState } from "react";
import type { ChatMessage } from "./types";

export interface AgentRunState {
  messages: ChatMessage[];
  /** The assistant message being streamed, while it streams. */
  streaming: { id: string; content: string } | null;
  running: boolean;
  error: RunFailure | null;
}

export interface RunFailure {
  message: string;
  /** What the user can do about it: sign in again (the session ended), or reload what was saved. */
  remedy?: "sign-in" | "reload";
}

function fromAgui(messages: readonly Message[]): ChatMessage[] {
  return messages.flatMap((m) =>
    m.role === "user" || m.role === "assistant" || m.role === "system" || m.role === "developer"
      ? [{ id: m.id, role: m.role, content: typeof m.content === "string" ? m.content : "" }]
      : [],
  );
}

/** Runs an agent over AG-UI with `@ag-ui/client`, keeping the conversation and the live stream in state. */
export function useAgentRun(agentId: string, initialMessages: ChatMessage[]) {
  const [state, setState] = useState<AgentRunState>({
    messages: initialMessages,
    streaming: null,
    running: false,
    error: null,
  });

  const send = useCallback(
    async (threadId: string, text: string) => {
      const userMessage: ChatMessage = { id: crypto.randomUUID(), role: "user", content: text };
      const history = [...state.messages, userMessage];
      setState((s) => ({ ...s, messages: history, running: true, error: null }));
      const agent = new HttpAgent({
        url: `/api/agents/${encodeURIComponent(agentId)}/runs`,
        threadId,
        initialMessages: history as Message[],
      });
      // Once the run started, the server holds the message. A request refused before that stored
      // nothing, so its message leaves the conversation and goes back into the composer.
      let started = false;
      let ended = false;
      let refused = false;
      const fail = (failure: RunFailure) => setState((s) => ({ ...s, error: failure }));
      const failOrRefuse = (error: unknown) => {
        if (started) return fail(describe(error));
        refused = true;
        setState((s) => ({ ...s, error: describe(error), messages: s.messages.filter((m) => m.id !== userMessage.id) }));
      };
      try {
        await agent.runAgent(
          { runId: crypto.randomUUID() },
          {
            onRunStartedEvent: () => {
              started = true;
            },
            onRunFinishedEvent: () => {
              ended = true;
            },
            onTextMessageStartEvent: ({ event }) =>
              setState((s) => ({ ...s, streaming: { id: event.messageId, content: "" } })),
            onTextMessageContentEvent: ({ event }) =>
              setState((s) =>
                s.streaming ? { ...s, streaming: { ...s.streaming, content: s.streaming.content + event.delta } } : s,
              ),
            onTextMessageEndEvent: () =>
              setState((s) =>
                s.streaming
                  ? { ...s, streaming: null, messages: [...s.messages, { ...s.streaming, role: "assistant" }] }
                  : s,
              ),
            onMessagesSnapshotEvent: ({ event }) => setState((s) => ({ ...s, messages: fromAgui(event.messages) })),
            onRunErrorEvent: ({ event }) => {
              ended = true;
              fail({ message: event.message });
            },
            onRunFailed: ({ error }) => failOrRefuse(error),
          },
        );
        // @ag-ui/client resolves even when the stream was cut before its last event.
        if (!ended && !refused) {
          fail({ message: "The connection dropped before the reply finished.", remedy: "reload" });
        }
      } catch (error) {
        failOrRefuse(error);
      } finally {
        setState((s) => ({ ...s, running: false, streaming: null }));
      }
      return { delivered: !refused };
    },
    [agentId, state.messages],
  );

  return { ...state, send };
}

function describe(error: unknown): RunFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (/\b401\b/.test(message)) return { message: "Your session has ended.", remedy: "sign-in" };
  if (/\b403\b/.test(message)) return { message: "This conversation belongs to another user." };
  if (/\b404\b/.test(message)) return { message: "This conversation or agent does not exist." };
  return { message: `The run failed: ${message}` };
}
