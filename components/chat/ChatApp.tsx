"use client";

import { useQueryClient } from "@tanstack/react-query";
import { Fragment, useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useRouter } from "next/navigation";
import { useTRPC } from "@/components/trpc/client";
import { ApprovalCard } from "@/components/interactions/ApprovalCard";
import { ClientToolHost, useClientTools } from "@/components/interactions/ClientToolHost";
import { ExternalWaitStatus } from "@/components/interactions/ExternalWaitStatus";
import { OAuthCard } from "@/components/interactions/OAuthCard";
import { PrivateInputForm } from "@/components/interactions/PrivateInputForm";
import { RemoteQuestionCard } from "@/components/interactions/RemoteQuestionCard";
import { ToolCallNote } from "@/components/interactions/ToolCallNote";
import { useToolCatalog } from "@/components/interactions/tools";
import { ThreadList } from "./ThreadList";
import { useGates } from "./useGates";
import type { ChatMessage } from "./types";
import { useAgentRun } from "./useAgentRun";

const AGENT_ID = "concierge";

interface ConversationProps {
  threadId: string | null;
  initialMessages: ChatMessage[];
  /** The signed-in user: decides which requests they may answer themselves. */
  viewerId: string;
}

export function ChatApp(props: ConversationProps) {
  return (
    <ClientToolHost>
      <div className="chat-layout">
        <ThreadList activeId={props.threadId} />
        <Conversation key={props.threadId ?? "new"} {...props} />
      </div>
    </ClientToolHost>
  );
}

function Conversation({ threadId, initialMessages, viewerId }: ConversationProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [draft, setDraft] = useState("");
  const clientTools = useClientTools();
  const tools = useToolCatalog(AGENT_ID);
  const run = useAgentRun(AGENT_ID, threadId, initialMessages, clientTools);
  const { replaceMessages } = run;
  const gates = useGates(threadId, viewerId, run);
  const bottom = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [run.messages.length, run.streaming?.content, gates.pending.length]);

  useEffect(() => {
    if (!run.running) input.current?.focus();
  }, [run.running]);

  // A browser tool still waiting when the page loaded (or asked for by a run followed from
  // elsewhere) is answered by this browser at once, as if the request had just arrived. The run
  // answers each request once, so a refreshed list does not answer it again.
  const { answerPending, running } = run;
  const waitingForBrowser = useMemo(
    () =>
      gates.pending.flatMap((i) =>
        i.kind === "client_tool" && i.tool && clientTools.has(i.tool.name)
          ? [{ requestId: i.interactionId, toolCallId: i.toolCallId ?? "", toolName: i.tool.name }]
          : [],
      ),
    [gates.pending, clientTools],
  );
  useEffect(() => {
    if (!running && waitingForBrowser.length > 0) answerPending(waitingForBrowser);
  }, [waitingForBrowser, running, answerPending]);

  /** Background work appended its result to the thread: show the server's record. */
  const reloadConversation = useCallback(async () => {
    if (!threadId) return;
    const { messages } = await queryClient.fetchQuery({ ...trpc.threads.get.queryOptions({ threadId }), staleTime: 0 });
    replaceMessages(
      messages.map(({ id, role, content, toolCalls, toolCallId }) => ({
        id,
        role,
        content,
        ...(toolCalls ? { toolCalls } : {}),
        ...(toolCallId ? { toolCallId } : {}),
      })),
    );
    await queryClient.invalidateQueries({ queryKey: trpc.interactions.list.queryKey() });
  }, [threadId, queryClient, trpc, replaceMessages]);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || run.running || gates.blocking) return;
    // A new conversation gets its id here; the server creates the thread on the first run.
    const id = threadId ?? crypto.randomUUID();
    setDraft("");
    const { delivered } = await run.send(id, text);
    if (!delivered) {
      setDraft(text);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.threads.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.interactions.list.queryKey({ threadId: id }) }),
    ]);
    // The conversation now has its own address: the list highlights it, and "New conversation"
    // starts a fresh one again.
    if (!threadId) router.replace(`/chat/${encodeURIComponent(id)}`);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      void submit();
    }
  }

  const results = new Map(run.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content]));
  const empty = run.messages.length === 0 && !run.streaming;
  const placeholder = run.running
    ? "Waiting for the reply…"
    : gates.operatorPause
      ? "Paused by an operator…"
      : gates.waitingForOthers
        ? "Waiting for an approver to decide…"
        : gates.blocking
          ? "Answer the request above first"
          : "Message the concierge (Enter to send)";
  return (
    <section className="conversation" aria-label="Conversation">
      <div className="messages" data-testid="messages" aria-live="polite">
        {empty ? (
          <div className="empty-state">
            <h2>How can the concierge help?</h2>
            <p className="muted">Say hello, or ask what it can do.</p>
          </div>
        ) : null}
        {run.messages.map((m) =>
          m.role === "tool" ? null : m.role === "system" || m.role === "developer" ? (
            <SystemNote key={m.id} content={m.content} />
          ) : (
            <Fragment key={m.id}>
              {m.content ? <MessageBubble role={m.role} content={m.content} /> : null}
              {m.toolCalls?.map((call) =>
                clientTools.has(call.name) ? (
                  <ToolCallNote key={call.id} call={call} result={results.get(call.id)} />
                ) : gates.byToolCall.get(call.id)?.kind === "external_wait" ? (
                  <ExternalWaitStatus
                    key={call.id}
                    call={call}
                    responseId={gates.byToolCall.get(call.id)!.interactionId}
                    result={results.get(call.id)}
                    onSettled={() =>
                      void reloadConversation().catch((error: unknown) =>
                        run.report({ message: `Could not load the result: ${error instanceof Error ? error.message : String(error)}` }),
                      )
                    }
                  />
                ) : gates.byToolCall.get(call.id)?.kind === "private_input" ? (
                  <PrivateInputForm
                    key={call.id}
                    interaction={gates.byToolCall.get(call.id)}
                    busy={run.running}
                    onSubmit={(value) => void gates.answerAlone(call.id, { status: "resolved", payload: value }, { privately: true })}
                    onCancel={() => void gates.answerAlone(call.id, { status: "cancelled" }, { privately: true })}
                  />
                ) : gates.byToolCall.get(call.id)?.kind === "oauth" ? (
                  <Fragment key={call.id}>
                    <OAuthCard
                      interaction={gates.byToolCall.get(call.id)!}
                      toolName={call.name}
                      busy={run.running}
                      onCancel={() => void gates.answerAlone(call.id, { status: "cancelled" })}
                      onConsent={() => void gates.refresh()}
                    />
                    {results.has(call.id) ? <ToolCallNote call={call} result={results.get(call.id)} where="server" /> : null}
                  </Fragment>
                ) : gates.byToolCall.get(call.id)?.kind === "a2a" ? (
                  <RemoteQuestionCard
                    key={call.id}
                    interaction={gates.byToolCall.get(call.id)!}
                    busy={run.running}
                    onAnswer={(payload) =>
                      void gates.answerAlone(call.id, { status: "resolved", payload }, { privately: "credential" in payload })
                    }
                    onCancel={() => void gates.answerAlone(call.id, { status: "cancelled" })}
                  />
                ) : !(tools.gated(call.name) ?? gates.byToolCall.has(call.id)) ? (
                  <ToolCallNote key={call.id} call={call} result={results.get(call.id)} where="server" />
                ) : (
                  <ApprovalCard
                    key={call.id}
                    call={call}
                    interaction={gates.byToolCall.get(call.id)}
                    result={results.get(call.id)}
                    viewerId={viewerId}
                    chosen={gates.chosen(call.id)}
                    busy={run.running}
                    onDecide={(approved, reason) => gates.decide(call.id, approved, reason)}
                  />
                ),
              )}
            </Fragment>
          ),
        )}
        {run.streaming ? <MessageBubble role="assistant" content={run.streaming.content} streaming /> : null}
        {gates.operatorPause ? (
          <div className="operator-pause" role="status" data-testid="operator-pause">
            <strong>Paused by an operator.</strong> The concierge goes on where it stopped as soon as an admin resumes it.
          </div>
        ) : null}
        {run.running && !run.streaming ? (
          run.queuedAhead !== null ? (
            <div className="typing muted small" role="status" data-testid="run-queued">
              Queued — {run.queuedAhead} ahead
            </div>
          ) : (
            <div className="typing muted small">The concierge is working…</div>
          )
        ) : null}
        {run.error ? (
          <div role="alert" className="error banner" data-testid="run-error" data-code={run.error.code}>
            {run.error.message}{" "}
            {run.error.remedy === "sign-in" ? (
              <a href={`/signin?callbackUrl=${encodeURIComponent(threadId ? `/chat/${threadId}` : "/chat")}`}>Sign in again</a>
            ) : null}
            {run.error.remedy === "reload" ? (
              <button type="button" className="link" onClick={() => window.location.reload()}>
                Reload what was saved
              </button>
            ) : null}
          </div>
        ) : null}
        <div ref={bottom} />
      </div>
      <form className="composer" onSubmit={(e) => void submit(e)}>
        <textarea
          ref={input}
          name="message"
          aria-label="Message"
          placeholder={placeholder}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          disabled={run.running || gates.blocking}
          rows={2}
          maxLength={20_000}
        />
        <button type="submit" className="button primary" disabled={run.running || gates.blocking || draft.trim() === ""}>
          {run.running ? "Sending…" : "Send"}
        </button>
      </form>
    </section>
  );
}

function MessageBubble({ role, content, streaming }: { role: "user" | "assistant"; content: string; streaming?: boolean }) {
  return (
    <div className={`message ${role}${streaming ? " streaming" : ""}`} data-role={role} data-testid={`message-${role}`}>
      <div className="message-author">{role === "user" ? "You" : "Concierge"}</div>
      <div className="message-body">{content}</div>
    </div>
  );
}

/** What happened to the run, said by Harbor rather than by anyone in the conversation (a cancel, for one). */
function SystemNote({ content }: { content: string }) {
  return (
    <p className="system-note" role="note" data-testid="system-note">
      {content}
    </p>
  );
}
