"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useRouter } from "next/navigation";
import { useTRPC } from "@/components/trpc/client";
import { ThreadList } from "./ThreadList";
import type { ChatMessage } from "./types";
import { useAgentRun } from "./useAgentRun";

const AGENT_ID = "concierge";

export function ChatApp({ threadId, initialMessages }: { threadId: string | null; initialMessages: ChatMessage[] }) {
  return (
    <div className="chat-layout">
      <ThreadList activeId={threadId} />
      <Conversation key={threadId ?? "new"} threadId={threadId} initialMessages={initialMessages} />
    </div>
  );
}

function Conversation({ threadId, initialMessages }: { threadId: string | null; initialMessages: ChatMessage[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [draft, setDraft] = useState("");
  const run = useAgentRun(AGENT_ID, initialMessages);
  const bottom = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [run.messages.length, run.streaming?.content]);

  useEffect(() => {
    if (!run.running) input.current?.focus();
  }, [run.running]);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || run.running) return;
    // A new conversation gets its id here; the server creates the thread on the first run.
    const id = threadId ?? crypto.randomUUID();
    setDraft("");
    const { delivered } = await run.send(id, text);
    if (!delivered) {
      setDraft(text);
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.threads.list.queryKey() });
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

  const empty = run.messages.length === 0 && !run.streaming;
  return (
    <section className="conversation" aria-label="Conversation">
      <div className="messages" data-testid="messages" aria-live="polite">
        {empty ? (
          <div className="empty-state">
            <h2>How can the concierge help?</h2>
            <p className="muted">Say hello, or ask what it can do.</p>
          </div>
        ) : null}
        {run.messages.map((m) => (
          <MessageBubble key={m.id} role={m.role} content={m.content} />
        ))}
        {run.streaming ? <MessageBubble role="assistant" content={run.streaming.content} streaming /> : null}
        {run.running && !run.streaming ? <div className="typing muted small">The concierge is thinking…</div> : null}
        {run.error ? (
          <div role="alert" className="error banner" data-testid="run-error">
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
          placeholder={run.running ? "Waiting for the reply…" : "Message the concierge (Enter to send)"}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          disabled={run.running}
          rows={2}
          maxLength={20_000}
        />
        <button type="submit" className="button primary" disabled={run.running || draft.trim() === ""}>
          {run.running ? "Sending…" : "Send"}
        </button>
      </form>
    </section>
  );
}

function MessageBubble({ role, content, streaming }: { role: ChatMessage["role"]; content: string; streaming?: boolean }) {
  return (
    <div className={`message ${role}${streaming ? " streaming" : ""}`} data-role={role} data-testid={`message-${role}`}>
      <div className="message-author">{role === "user" ? "You" : role === "assistant" ? "Concierge" : role}</div>
      <div className="message-body">{content}</div>
    </div>
  );
}
