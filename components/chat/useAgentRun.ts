"use client";

import { EventType, HttpAgent, type Message } from "@ag-ui/client";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { z } from "zod";
import { WIRE_EVENTS, type RunEvent } from "@/server/domain";
import type { ClientToolRegistry } from "@/components/interactions/ClientToolHost";
import { runNotice, withNotice } from "./run-notices";
import {
  addText,
  applyRunEvent,
  endText,
  failureOf,
  failureOfRequest,
  startText,
  withProgress,
  type FollowedState,
  type RunFailure,
  type ToolProgress,
} from "./run-events";
import type { ChatMessage, ResumeAnswer } from "./types";
import { useRunFollow } from "./useRunFollow";

export type { RunFailure, ToolProgress } from "./run-events";

export interface AgentRunState extends FollowedState {
  messages: ChatMessage[];
  /** The assistant message being streamed, while it streams. */
  streaming: { id: string; content: string } | null;
  running: boolean;
  /** While the run waits for its turn: how many runs are ahead of it. */
  queuedAhead: number | null;
  error: RunFailure | null;
  /** How far each tool call in flight has come, as its tool reports (an MCP server's progress). */
  progress: Record<string, ToolProgress>;
}

/** What `CUSTOM tool.progress` carries. */
const ProgressEvent = z.object({
  toolCallId: z.string(),
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
});

/** Refusals of a new message that stored nothing: the message goes back into the composer. */
const NOT_STORED = new Set(["PENDING_INTERACTION", "RUN_IN_PROGRESS"]);

/** What `CUSTOM harnest.client_tool` carries. */
const BrowserRequest = z.object({ requestId: z.string(), toolCallId: z.string(), toolName: z.string() });
type BrowserRequest = z.infer<typeof BrowserRequest>;

function fromAgui(messages: readonly Message[]): ChatMessage[] {
  return messages.flatMap((m): ChatMessage[] => {
    const content = "content" in m && typeof m.content === "string" ? m.content : "";
    if (m.role === "assistant") {
      const toolCalls = m.toolCalls?.map((c) => ({ id: c.id, name: c.function.name, args: parseArgs(c.function.arguments) }));
      return [{ id: m.id, role: "assistant", content, ...(toolCalls?.length ? { toolCalls } : {}) }];
    }
    if (m.role === "tool") return [{ id: m.id, role: "tool", content, toolCallId: m.toolCallId }];
    if (m.role === "user" || m.role === "system" || m.role === "developer") return [{ id: m.id, role: m.role, content }];
    return [];
  });
}

function toAgui(messages: readonly ChatMessage[]): Message[] {
  return messages.map((m): Message => {
    if (m.role === "assistant" && m.toolCalls?.length) {
      return {
        id: m.id,
        role: "assistant",
        content: m.content,
        toolCalls: m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
      };
    }
    if (m.role === "tool") return { id: m.id, role: "tool", content: m.content, toolCallId: m.toolCallId ?? "" };
    return { id: m.id, role: m.role, content: m.content } as Message;
  });
}

/** Tool-call arguments as an object; anything else is shown as it came, never silently dropped. */
function parseArgs(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { arguments: json, unreadable: error instanceof Error ? error.message : String(error) };
  }
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : { arguments: json };
}

/**
 * Runs an agent over AG-UI with `@ag-ui/client`, keeping the conversation and the live stream in
 * state: new messages (`send`), answers to open interrupts (`resume`), and runs continued by someone
 * else, fed from the run-events subscription (`apply`).
 */
export function useAgentRun(agentId: string, threadId: string | null, initialMessages: ChatMessage[], clientTools: ClientToolRegistry) {
  const [state, setState] = useState<AgentRunState>({
    messages: initialMessages,
    streaming: null,
    running: false,
    queuedAhead: null,
    retrying: null,
    error: null,
    progress: {},
  });
  // The conversation as last committed, for callbacks that build the next request from it. A
  // snapshot also writes it at once, because a browser tool's follow-up run starts from it before
  // React commits.
  const messages = useRef(state.messages);
  useLayoutEffect(() => {
    messages.current = state.messages;
  }, [state.messages]);
  const answered = useRef(new Set<string>());
  // Transport runs of this page still streaming (the composer stays free: a message sent while a
  // run works is a run of its own, which the thread's double-texting policy queues, refuses or
  // lets interrupt), and their user messages, kept in view until the server's record has them.
  const active = useRef(0);
  const inFlight = useRef(new Map<string, ChatMessage>());
  // The transport run whose queue notice is shown: only its own events end the wait.
  const queuedBy = useRef<string | null>(null);
  const attached = useRef(false);

  /** Replaces the conversation with the server's record, keeping messages of runs still on their way. */
  const replaceMessages = useCallback((next: ChatMessage[]) => {
    const waiting = [...inFlight.current.values()].filter((m) => !next.some((n) => n.id === m.id));
    messages.current = [...next, ...waiting];
    setState((s) => ({ ...s, messages: messages.current }));
  }, []);

  const follow = useRunFollow({
    apply: (event) => setState((s) => applyRunEvent(s, event)),
    replaceMessages,
    showLatestRun: (latestRun) => {
      const failure = failureOf(latestRun);
      // A run this page started since then decides what it shows; a failure already shown stays as it is.
      if (failure && active.current === 0) setState((s) => (s.error ? s : { ...s, error: failure }));
    },
    setFollowing: (following) => {
      attached.current = following;
      setState((s) => (following ? { ...s, running: true } : active.current > 0 ? s : { ...s, running: false, streaming: null }));
    },
    onRunStopped: () => undefined,
  });
  const { attach } = follow;

  // A conversation opened while its run works attaches to it (its log, then live): on a reload, in
  // another tab or device, or coming back to it from the list. Once, for the thread the page opened.
  const [opened] = useState(threadId);
  useEffect(() => {
    if (opened) attach(opened);
  }, [opened, attach]);

  /** One transport run: streams it into state and reports the browser tools it asked for. */
  const execute = useCallback(
    async (
      id: string,
      options: {
        userMessage?: ChatMessage;
        resume?: ResumeAnswer[];
        toolResults?: ChatMessage[];
        privately?: boolean;
        onStarted?: () => void;
      },
    ): Promise<{ delivered: boolean; browserRequests: BrowserRequest[] }> => {
      const history = [...messages.current, ...(options.userMessage ? [options.userMessage] : []), ...(options.toolResults ?? [])];
      messages.current = history;
      const runId = crypto.randomUUID();
      active.current += 1;
      if (options.userMessage) inFlight.current.set(options.userMessage.id, options.userMessage);
      setState((s) => ({ ...s, messages: history, running: true, error: null }));
      // A private answer travels alone: no messages, no state that a snapshot could echo.
      const agent = new HttpAgent({
        url: `/api/agents/${encodeURIComponent(agentId)}/runs`,
        threadId: id,
        initialMessages: options.privately
          ? []
          : toAgui(history.filter((m) => !inFlight.current.has(m.id) || m.id === options.userMessage?.id)),
      });
      // Once the run started, the server holds the message. A request refused before that stored
      // nothing, so its message leaves the conversation and goes back into the composer.
      let started = false;
      let ended = false;
      let refused = false;
      let failed = false;
      const browserRequests: BrowserRequest[] = [];
      const withoutMessage = (s: AgentRunState) => s.messages.filter((m) => m.id !== options.userMessage?.id);
      const failOrRefuse = (error: unknown) => {
        if (started) return;
        refused = true;
        setState((s) => ({ ...s, error: failureOfRequest(error), messages: withoutMessage(s) }));
      };
      try {
        await agent.runAgent(
          { runId, ...(options.resume ? { resume: options.resume } : {}) },
          {
            onRunStartedEvent: () => {
              started = true;
              options.onStarted?.();
            },
            // Anything but the start and the queue's own notices means the run has its turn.
            onEvent: ({ event }) => {
              if (event.type === EventType.RUN_STARTED || (event.type === EventType.CUSTOM && event.name === WIRE_EVENTS.runQueued)) return;
              if (queuedBy.current !== runId) return;
              queuedBy.current = null;
              setState((s) => ({ ...s, queuedAhead: null }));
            },
            onRunFinishedEvent: () => {
              ended = true;
            },
            onTextMessageStartEvent: ({ event }) => setState((s) => startText(s, event.messageId)),
            onTextMessageContentEvent: ({ event }) => setState((s) => addText(s, event.messageId, event.delta)),
            onTextMessageEndEvent: ({ event }) => setState((s) => endText(s, event.messageId)),
            // The model answered with a call: it is no longer being asked again.
            onToolCallStartEvent: () => setState((s) => (s.retrying ? { ...s, retrying: null } : s)),
            onToolCallResultEvent: ({ event }) =>
              setState((s) =>
                s.messages.some((m) => m.id === event.messageId)
                  ? s
                  : {
                      ...s,
                      messages: [
                        ...s.messages,
                        { id: event.messageId, role: "tool", content: String(event.content), toolCallId: event.toolCallId },
                      ],
                    },
              ),
            onMessagesSnapshotEvent: ({ event }) => {
              // Kept at once: a browser tool's follow-up run starts from this history.
              if (options.userMessage) inFlight.current.delete(options.userMessage.id);
              replaceMessages(fromAgui(event.messages));
            },
            onCustomEvent: ({ event }) => {
              if (event.name === WIRE_EVENTS.clientTool) {
                const request = BrowserRequest.safeParse(event.value);
                if (request.success) browserRequests.push(request.data);
                return;
              }
              if (event.name === WIRE_EVENTS.toolProgress) {
                const progress = ProgressEvent.safeParse(event.value);
                if (progress.success) setState((s) => withProgress(s, progress.data));
                return;
              }
              const notice = runNotice(event.name, event.value);
              if (notice?.type === "queued") queuedBy.current = runId;
              if (notice) setState((s) => withNotice(s, notice));
            },
            onRunErrorEvent: ({ event }) => {
              ended = true;
              failed = true;
              // A refused message (e.g. PENDING_INTERACTION, RUN_IN_PROGRESS) was not stored: give it back to the composer.
              if (options.userMessage && event.code && NOT_STORED.has(event.code)) refused = true;
              setState((s) => ({
                ...s,
                error: { message: event.message, code: event.code },
                messages: refused ? withoutMessage(s) : s.messages,
              }));
            },
            onRunFailed: ({ error }) => failOrRefuse(error),
          },
        );
      } catch (error) {
        failOrRefuse(error);
      } finally {
        active.current -= 1;
        if (options.userMessage && (refused || ended)) inFlight.current.delete(options.userMessage.id);
        if (queuedBy.current === runId) queuedBy.current = null;
        // A stream cut before its end (the server went away) keeps what arrived; the page
        // attaches to the thread's runs and catches up from their log once the server is back.
        const dropped = started && !ended;
        if (dropped) attach(id);
        else if (active.current === 0 && !attached.current)
          setState((s) => ({ ...s, running: false, streaming: null, queuedAhead: null, retrying: null }));
      }
      return { delivered: !refused, browserRequests: ended && !failed ? browserRequests : [] };
    },
    [agentId, attach, replaceMessages],
  );

  /**
   * Runs the browser tools a run asked for, at once, and continues the run with their outputs as
   * standard tool messages — again while the continuation asks for more. A tool this browser
   * cannot run is cancelled, so the run does not wait.
   */
  const answerBrowserTools = useCallback(
    async (id: string, asked: BrowserRequest[]) => {
      let open = asked;
      while (open.length > 0) {
        // Each request is answered once from this page, however it was noticed (the run's events, or a reload).
        const requests = open.filter((r) => !answered.current.has(r.requestId));
        if (requests.length === 0) return;
        for (const r of requests) answered.current.add(r.requestId);
        const outcome = await runBrowserTools(requests, clientTools, messages.current);
        if ("failure" in outcome) {
          setState((s) => ({ ...s, error: { message: `The browser tool failed: ${outcome.failure}` } }));
          await execute(id, { resume: requests.map((r) => ({ interruptId: r.requestId, status: "cancelled" as const })) });
          return;
        }
        ({ browserRequests: open } = await execute(id, { toolResults: outcome.results }));
      }
    },
    [clientTools, execute],
  );

  const run = useCallback(
    async (id: string, options: Parameters<typeof execute>[1]): Promise<{ delivered: boolean }> => {
      const { delivered, browserRequests } = await execute(id, options);
      await answerBrowserTools(id, browserRequests);
      return { delivered };
    },
    [execute, answerBrowserTools],
  );

  /** Sends a new message; `onStarted` once the server stored it (the run started). */
  const send = useCallback(
    (id: string, text: string, onStarted?: () => void) =>
      run(id, { userMessage: { id: crypto.randomUUID(), role: "user", content: text }, onStarted }),
    [run],
  );

  const resume = useCallback(
    async (answers: ResumeAnswer[], options: { privately?: boolean } = {}) => {
      if (!threadId) return { delivered: false };
      return run(threadId, { resume: answers, privately: options.privately });
    },
    [run, threadId],
  );

  /**
   * The thread was rewound (an edit or a regenerate) and a new run started on it: the conversation
   * shows what was kept at once, then the server's record and the run, followed on its log.
   */
  const rewound = useCallback(
    (id: string, kept: ChatMessage[]) => {
      messages.current = kept;
      setState((s) => ({ ...s, messages: kept, running: true, streaming: null, error: null }));
      attach(id);
    },
    [attach],
  );

  /**
   * Starts the thread's work again from its record (Retry: after a failed run, or a request that
   * expired or was lost): no answers and no new message, so the server plans from the user's last
   * words. Once at a time: a second click while one is on its way does nothing.
   */
  const retryOnItsWay = useRef(false);
  const retry = useCallback(async () => {
    if (!threadId || retryOnItsWay.current || active.current > 0) return { delivered: false };
    retryOnItsWay.current = true;
    try {
      return await run(threadId, { resume: [] });
    } finally {
      retryOnItsWay.current = false;
    }
  }, [run, threadId]);

  /** Applies an event of a run someone else continued (an approver decided), as it happens. */
  const apply = useCallback((event: RunEvent) => setState((s) => applyRunEvent(s, event)), []);

  /** A note of what happened to the run that this page saw live (an operator resumed it). */
  const note = useCallback(
    (content: string) =>
      setState((s) => ({ ...s, messages: [...s.messages, { id: `run-note-${crypto.randomUUID()}`, role: "system", content }] })),
    [],
  );

  /** Shows a failure that happened outside a run (a decision sent through tRPC). */
  const report = useCallback((failure: RunFailure) => setState((s) => ({ ...s, error: failure })), []);

  /** Browser-tool requests still open when the page loaded: the browser answers them now. */
  const answerPending = useCallback(
    (requests: BrowserRequest[]) => {
      if (threadId) void answerBrowserTools(threadId, requests);
    },
    [threadId, answerBrowserTools],
  );

  return { ...state, offline: follow.offline, send, resume, retry, rewound, apply, note, report, replaceMessages, answerPending };
}

/** Runs each requested browser tool with the arguments of its call; the first failure stops them all. */
async function runBrowserTools(
  requests: readonly BrowserRequest[],
  tools: ClientToolRegistry,
  conversation: readonly ChatMessage[],
): Promise<{ results: ChatMessage[] } | { failure: string }> {
  const results: ChatMessage[] = [];
  for (const request of requests) {
    const handler = tools.get(request.toolName);
    const call = conversation.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === request.toolCallId);
    try {
      if (!handler) throw new Error(`this browser cannot run ${request.toolName}`);
      const output = await handler(call?.args ?? {});
      results.push({ id: crypto.randomUUID(), role: "tool", content: JSON.stringify(output), toolCallId: request.toolCallId });
    } catch (error) {
      return { failure: error instanceof Error ? error.message : String(error) };
    }
  }
  return { results };
}
