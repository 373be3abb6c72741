"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { refreshNow } from "@/components/trpc/refresh";
import { ApprovalCard } from "@/components/interactions/ApprovalCard";
import { ClientToolHost, useClientTools } from "@/components/interactions/ClientToolHost";
import { ExternalWaitStatus } from "@/components/interactions/ExternalWaitStatus";
import { OAuthCard } from "@/components/interactions/OAuthCard";
import { PrivateInputForm } from "@/components/interactions/PrivateInputForm";
import { McpQuestionCard, mcpPayload } from "@/components/interactions/McpQuestionCard";
import { RemoteQuestionCard } from "@/components/interactions/RemoteQuestionCard";
import { refusedReason, ToolCallNote } from "@/components/interactions/ToolCallNote";
import { useToolCatalog } from "@/components/interactions/tools";
import { isDead } from "@/components/interactions/RetryRequest";
import { AnchorIcon, BotIcon, MessageSquarePlusIcon, PanelLeftIcon, PauseCircleIcon } from "lucide-react";
import Link from "next/link";
import { ErrorAlert, WarningNotice } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Select } from "@/components/ui/Input";
import { Sheet, SheetContent, SheetTrigger } from "@/components/ui/Sheet";
import { Composer } from "./Composer";
import { Markdown } from "./Markdown";
import { MessageActions } from "./MessageActions";
import { MessageEditor } from "./MessageEditor";
import { suggestionsFor, type AgentSummary } from "./suggestions";
import { ThreadList, useThreadInfo, useThreadTitle } from "./ThreadList";
import { useGates } from "./useGates";
import { useRequestFocus } from "./useRequestFocus";
import type { ChatMessage, ChatToolCall } from "./types";
import type { InteractionView } from "@/components/trpc/types";
import { useAgentRun } from "./useAgentRun";
import { useRewind } from "./useRewind";
import { useStopRun } from "./useStopRun";
import { OfflineBanner } from "./OfflineBanner";
import { interrupted } from "./run-events";
import { takeAddress, useConversationAddress } from "./useConversationAddress";

/** The agent a conversation talks to when nothing else is known: the concierge needs no model. */
const DEFAULT_AGENT_ID = "concierge";

interface ConversationProps {
  threadId: string | null;
  initialMessages: ChatMessage[];
  /** The signed-in user: decides which requests they may answer themselves. */
  viewerId: string;
  /** The most characters a message may have, as the server's settings say. */
  maxMessageChars: number;
}

export function ChatApp(props: ConversationProps) {
  const trpc = useTRPC();
  // The registry changes only with a deployment.
  const agents = useQuery(trpc.agents.list.queryOptions(undefined, { staleTime: Infinity }));
  const thread = useThreadInfo(props.threadId);
  // A conversation started here takes its address when its first run starts: the same conversation.
  const address = useConversationAddress(props.threadId);
  // A new conversation starts with the agent picked here; a thread keeps the agent of its runs.
  const [picked, setPicked] = useState(DEFAULT_AGENT_ID);
  const agentId = props.threadId ? (thread.agentId ?? DEFAULT_AGENT_ID) : picked;
  const agent = agents.data?.find((a) => a.id === agentId);
  return (
    <ClientToolHost>
      <div className="flex min-h-0 flex-1">
        <aside className="hidden w-72 shrink-0 flex-col border-r bg-surface md:flex" aria-label="Conversations">
          <ThreadList activeId={address.threadId} />
        </aside>
        <Conversation
          key={`${address.key}:${agentId}`}
          {...props}
          threadId={address.threadId}
          agentId={agentId}
          agent={agent}
          agents={agents.data ?? []}
          onPick={setPicked}
        />
      </div>
    </ClientToolHost>
  );
}

/** The page's heading, for screen readers: the conversation's title (the list and the phone bar show it to the eye). */
function ConversationHeading({ threadId }: { threadId: string | null }) {
  return <h1 className="sr-only">{useThreadTitle(threadId)}</h1>;
}

/** On phones the conversation list is a drawer, opened from a bar above the conversation. */
function PhoneBar({ threadId }: { threadId: string | null }) {
  const [open, setOpen] = useState(false);
  const title = useThreadTitle(threadId);
  return (
    <div className="flex h-12 shrink-0 items-center gap-1 border-b px-2 md:hidden">
      <Sheet open={open} onOpenChange={setOpen}>
        <SheetTrigger asChild>
          <Button variant="ghost" size="icon" aria-label="Conversations">
            <PanelLeftIcon className="!size-5" aria-hidden="true" />
          </Button>
        </SheetTrigger>
        <SheetContent side="left" title="Conversations">
          <ThreadList activeId={threadId} onNavigate={() => setOpen(false)} />
        </SheetContent>
      </Sheet>
      <p className="min-w-0 flex-1 truncate text-center text-sm font-medium">{title}</p>
      <Button asChild variant="ghost" size="icon">
        <Link href="/chat" aria-label="New conversation">
          <MessageSquarePlusIcon className="!size-5" aria-hidden="true" />
        </Link>
      </Button>
    </div>
  );
}

interface AgentChoice {
  agentId: string;
  agent: AgentSummary | undefined;
  agents: AgentSummary[];
  onPick(agentId: string): void;
}

/** Which agent a new conversation talks to; the assistant is offered only when a model is configured. */
function AgentPicker({ agentId, agents, onPick }: Pick<AgentChoice, "agentId" | "agents" | "onPick">) {
  const options = agents.length > 0 ? agents : [{ id: DEFAULT_AGENT_ID, name: "Concierge" }];
  return (
    <label className="flex items-center gap-2 text-sm text-muted-foreground">
      <BotIcon className="size-4" aria-hidden="true" />
      <span>Agent</span>
      <Select
        className="h-8 w-auto min-w-36 text-foreground"
        value={agentId}
        onChange={(e) => onPick(e.target.value)}
        data-testid="agent-picker"
      >
        {options.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </Select>
    </label>
  );
}

/** What the composer waits for while a request of the thread is open (a background job never blocks it). */
function waitingFor(kinds: ReadonlySet<string>, waitingForOthers: boolean, operatorPause: boolean): string | null {
  if (operatorPause) return "Paused by an operator…";
  if (waitingForOthers) return "Waiting for an approver to decide…";
  if (kinds.has("approval")) return "Answer the request above first";
  if (kinds.has("private_input")) return "Fill in the private form above first";
  if (kinds.has("oauth")) return "Waiting for your consent at the provider…";
  if (kinds.has("a2a")) return "Answer the remote agent's question above first";
  if (kinds.has("client_tool")) return "Waiting for this browser to run a tool…";
  if (kinds.size > 0) return "Answer the request above first";
  return null;
}

function Conversation({
  threadId,
  initialMessages,
  viewerId,
  maxMessageChars,
  agentId,
  agent,
  agents,
  onPick,
}: ConversationProps & AgentChoice) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState("");
  const clientTools = useClientTools();
  const tools = useToolCatalog(agentId);
  const run = useAgentRun(agentId, threadId, initialMessages, clientTools);
  const agentName = agent?.name ?? "Concierge";
  const { stopping, stop, thread: conversationId } = useStopRun(threadId, viewerId, run);
  const { replaceMessages } = run;
  const gates = useGates(threadId, viewerId, run);
  // Only requests that hold the thread lock the composer; background work (research) does not.
  const blockedBy = waitingFor(new Set(gates.blockers.map((i) => i.kind)), gates.waitingForOthers, !!gates.operatorPause);
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
    await refreshNow(queryClient, trpc.interactions.list.queryKey());
  }, [threadId, queryClient, trpc, replaceMessages]);

  async function submit() {
    const text = draft.trim();
    // While a run works the composer stays free: the thread's double-texting policy decides.
    if (!text || blockedBy) return;
    // A new conversation gets its id here; the server creates the thread on the first run.
    const id = conversationId(() => crypto.randomUUID());
    setDraft("");
    // Stored, the conversation has its address and its place in the list at once, long before the reply ends.
    const started = () => {
      takeAddress(id);
      void queryClient.invalidateQueries({ queryKey: trpc.threads.list.queryKey() });
    };
    const { delivered } = await run.send(id, text, started);
    if (!delivered) {
      setDraft((now) => now || text);
      return;
    }
    await refreshNow(queryClient, trpc.interactions.list.queryKey({ threadId: id }));
  }

  // Edit and Regenerate start a run of their own: only on a conversation with nothing live or waiting.
  const rewind = useRewind(threadId, run);
  const rewindBlocked =
    run.running || rewind.busy
      ? "Wait for the reply to finish, or stop it"
      : gates.pending.length > 0
        ? (blockedBy ?? "Wait for the background work to finish")
        : null;
  const lastReply = lastReplyOf(run.messages);

  // A request that just opened takes the focus (never on a dismissive action).
  const conversation = useRef<HTMLDivElement>(null);
  useRequestFocus(conversation, gates.blockers, run.running);

  const results = new Map(run.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content]));
  const empty = run.messages.length === 0 && !run.streaming;
  const placeholder = run.running
    ? stopping
      ? "Stopping…"
      : "Send another message, or Stop"
    : (blockedBy ?? `Message the ${agentName.toLowerCase()} (Enter to send)`);
  const disabled = blockedBy !== null;
  // A run that failed before it answered can run again: the user's message is still the last word.
  // So can one cut short with its instance, whatever it had said: the agent takes the request up again.
  const canRetry =
    !!threadId &&
    !run.running &&
    !run.error?.remedy &&
    !blockedBy &&
    (run.messages.findLast((m) => m.role !== "system")?.role === "user" || interrupted(run.error));
  // Requests nobody can answer any more (expired, lost) that the conversation ended on: Retry asks again.
  const askAgain = !!threadId && !run.running && !blockedBy ? deadEnd(run.messages, gates.byToolCall) : NONE;
  const retry = () =>
    void run
      .retry()
      .then(() => gates.refresh())
      .catch(() => undefined);
  // The thread's note of how its last run ended says what the failure shown below says: once is enough.
  const endNote = run.error ? run.messages.at(-1) : undefined;
  const shownBelow = (m: ChatMessage) => m === endNote && m.role === "system" && m.content === run.error?.message;
  const suggestions = suggestionsFor(agent);
  return (
    <section className="flex min-w-0 flex-1 flex-col" aria-label="Conversation">
      <ConversationHeading threadId={threadId} />
      <FinishedMessageAnnouncer messages={run.messages} author={agentName} />
      <PhoneBar threadId={threadId} />
      {/* Focusable, so the conversation scrolls by keyboard even when nothing in it can take focus. */}
      <div
        className="min-h-0 flex-1 overflow-y-auto focus-visible:outline-offset-[-2px]"
        tabIndex={0}
        role="region"
        aria-label="Chat history"
      >
        <div ref={conversation} className="mx-auto flex w-full max-w-3xl flex-col gap-5 px-4 py-6 sm:px-6" data-testid="messages">
          {empty ? (
            <div className="flex flex-col items-center gap-3 py-10 text-center sm:py-20">
              <span className="grid size-12 place-items-center rounded-2xl bg-primary-soft text-primary">
                <AnchorIcon className="size-6" aria-hidden="true" />
              </span>
              <h2 className="text-xl font-semibold tracking-tight sm:text-2xl">How can the {agentName.toLowerCase()} help?</h2>
              <p className="text-sm text-muted-foreground">
                {agent?.description && agent.id !== DEFAULT_AGENT_ID ? agent.description : "Say hello, or pick something to try."}
              </p>
              {!threadId ? <AgentPicker agentId={agentId} agents={agents} onPick={onPick} /> : null}
              <ul className="mt-2 flex max-w-2xl flex-wrap justify-center gap-2" aria-label="Suggestions">
                {suggestions.map((s) => (
                  <li key={s.label}>
                    <Button
                      variant="secondary"
                      size="sm"
                      className="rounded-full font-normal"
                      title={s.text}
                      onClick={() => {
                        setDraft(s.text);
                        input.current?.focus();
                      }}
                    >
                      {s.label}
                    </Button>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {run.messages.map((m, index) =>
            m.role === "tool" || shownBelow(m) ? null : m.role === "system" || m.role === "developer" ? (
              <SystemNote key={m.id} content={m.content} live={m.id.startsWith("run-note-")} />
            ) : (
              <Fragment key={m.id}>
                {rewind.editing === m.id ? (
                  <MessageEditor
                    initial={m.content}
                    maxChars={maxMessageChars}
                    busy={rewind.busy}
                    unavailable={rewindBlocked && !rewind.busy ? rewindBlocked : null}
                    onSend={(text) => void rewind.edit(m.id, text)}
                    onCancel={rewind.stopEditing}
                  />
                ) : m.content ? (
                  <MessageBubble
                    role={m.role}
                    author={agentName}
                    content={m.content}
                    continued={continues(run.messages, index)}
                    copyText={replyGroupText(run.messages, index)}
                    id={m.id}
                    onEdit={threadId && m.role === "user" ? () => rewind.startEditing(m.id) : undefined}
                    onRegenerate={threadId && m.id === lastReply ? () => void rewind.regenerate(m.id) : undefined}
                    unavailable={rewindBlocked}
                  />
                ) : null}
                {m.toolCalls?.map((call) =>
                  // A call Harbor refused never opened a request: a failed step, whatever its tool waits for.
                  refusedReason(results.get(call.id)) !== undefined || clientTools.has(call.name) ? (
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
                      onRetry={askAgain.has(call.id) ? retry : undefined}
                    />
                  ) : gates.byToolCall.get(call.id)?.kind === "oauth" ? (
                    <Fragment key={call.id}>
                      <DecidedGate call={call} gate={gates.gateByToolCall.get(call.id)} result={results.get(call.id)} viewerId={viewerId} />
                      <OAuthCard
                        interaction={gates.byToolCall.get(call.id)!}
                        toolName={call.name}
                        busy={run.running}
                        onCancel={() => void gates.answerAlone(call.id, { status: "cancelled" })}
                        onConsent={() => void gates.refresh()}
                        onRetry={askAgain.has(call.id) ? retry : undefined}
                      />
                      {results.has(call.id) && !gates.gateByToolCall.has(call.id) ? (
                        <ToolCallNote call={call} result={results.get(call.id)} where="server" />
                      ) : null}
                    </Fragment>
                  ) : gates.byToolCall.get(call.id)?.kind === "mcp_input" ? (
                    <Fragment key={call.id}>
                      <DecidedGate call={call} gate={gates.gateByToolCall.get(call.id)} result={results.get(call.id)} viewerId={viewerId} />
                      <McpQuestionCard
                        interaction={gates.byToolCall.get(call.id)!}
                        busy={run.running}
                        onAnswer={(answer) =>
                          void gates.answerAlone(call.id, { status: "resolved", payload: mcpPayload(answer) }, { privately: true })
                        }
                        onCancel={() => void gates.answerAlone(call.id, { status: "cancelled" }, { privately: true })}
                        onRetry={askAgain.has(call.id) ? retry : undefined}
                      />
                      {results.has(call.id) && !gates.gateByToolCall.has(call.id) ? (
                        <ToolCallNote call={call} result={results.get(call.id)} where="server" />
                      ) : null}
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
                      onRetry={askAgain.has(call.id) ? retry : undefined}
                    />
                  ) : !(tools.gated(call.name) ?? gates.byToolCall.has(call.id)) ? (
                    <ToolCallNote key={call.id} call={call} result={results.get(call.id)} where="server" progress={run.progress[call.id]} />
                  ) : (
                    <Fragment key={call.id}>
                      <ApprovalCard
                        call={call}
                        interaction={gates.byToolCall.get(call.id)}
                        result={results.get(call.id)}
                        viewerId={viewerId}
                        chosen={gates.chosen(call.id)}
                        busy={run.running}
                        onDecide={(approved, reason, grant) => gates.decide(call.id, approved, reason, grant)}
                        onWithdraw={() => gates.withdraw(call.id)}
                        onRetry={askAgain.has(call.id) ? retry : undefined}
                      />
                      {run.progress[call.id] && !results.has(call.id) ? (
                        <ToolCallNote call={call} where="server" progress={run.progress[call.id]} />
                      ) : null}
                    </Fragment>
                  ),
                )}
              </Fragment>
            ),
          )}
          {run.streaming ? (
            <MessageBubble
              role="assistant"
              author={agentName}
              content={run.streaming.content}
              streaming
              continued={continues([...run.messages, { id: "streaming", role: "assistant", content: "" }], run.messages.length)}
            />
          ) : null}
          {gates.operatorPause ? (
            <WarningNotice icon={PauseCircleIcon} data-testid="operator-pause">
              <strong className="font-semibold">Paused by an operator.</strong> The {agentName.toLowerCase()} goes on where it stopped as
              soon as an admin resumes it.
            </WarningNotice>
          ) : null}
          {run.queuedAhead !== null ? (
            <div className="flex items-center gap-2 text-sm text-muted-foreground" role="status" data-testid="run-queued">
              <TypingDots />
              Queued — {run.queuedAhead} ahead
            </div>
          ) : null}
          {run.running && !run.streaming && run.queuedAhead === null ? (
            run.retrying ? (
              // The model failed to answer and is asked again: said, instead of a silent "working…".
              <div className="flex items-center gap-2 text-sm text-muted-foreground" role="status" data-testid="run-retrying">
                <TypingDots />
                The model did not answer. Retrying… (attempt {run.retrying.attempt} of {run.retrying.maxAttempts})
              </div>
            ) : (
              <div className="flex items-center gap-2 text-sm text-muted-foreground">
                <TypingDots />
                The {agentName.toLowerCase()} is working…
              </div>
            )
          ) : null}
          {run.error ? (
            <ErrorAlert data-testid="run-error" data-code={run.error.code}>
              {run.error.message}{" "}
              {run.error.remedy === "sign-in" ? (
                <a
                  className="font-medium underline"
                  href={`/signin?callbackUrl=${encodeURIComponent(threadId ? `/chat/${threadId}` : "/chat")}`}
                >
                  Sign in again
                </a>
              ) : null}
              {canRetry ? (
                // No answers and no new message: the thread's run starts again from its record, which ends in the user's message.
                <Button variant="link" className="font-medium text-danger-fg" onClick={retry}>
                  Retry
                </Button>
              ) : null}
              {run.error.remedy === "reload" ? (
                <Button variant="link" className="font-medium text-danger-fg" onClick={() => window.location.reload()}>
                  Reload what was saved
                </Button>
              ) : null}
            </ErrorAlert>
          ) : null}
          <div ref={bottom} />
        </div>
      </div>
      <Composer
        inputRef={input}
        draft={draft}
        onDraft={setDraft}
        onSend={() => void submit()}
        running={run.running}
        stopping={stopping}
        onStop={() => void stop()}
        disabled={disabled}
        placeholder={placeholder}
        maxChars={maxMessageChars}
        notice={<OfflineBanner offline={run.offline} />}
      />
    </section>
  );
}

/** The conversation's last reply (its last assistant text with no message of the user after it): the one Regenerate replaces. */
function lastReplyOf(messages: ChatMessage[]): string | null {
  const index = messages.findLastIndex((m) => m.role === "assistant" && !!m.content);
  return index !== -1 && !messages.slice(index).some((m) => m.role === "user") ? messages[index]!.id : null;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The calls of the conversation's last word whose requests nobody can answer any more (expired, or
 * lost with a restart): the work stopped there, and Retry asks again. Any later word — the user's,
 * or the assistant's — and there is nothing to retry.
 */
function deadEnd(messages: readonly ChatMessage[], requests: ReadonlyMap<string, InteractionView>): ReadonlySet<string> {
  const last = messages.findLast((m) => m.role === "user" || m.role === "assistant");
  if (last?.role !== "assistant" || !last.toolCalls?.length) return NONE;
  const dead = last.toolCalls.filter((c) => isDead(requests.get(c.id)?.status));
  return dead.length > 0 ? new Set(dead.map((c) => c.id)) : NONE;
}

/** Whether an assistant message follows another one's plain text directly: it joins that group (no second name and avatar). */
function continues(messages: ChatMessage[], index: number): boolean {
  const previous = messages[index - 1];
  return messages[index]?.role === "assistant" && previous?.role === "assistant" && !!previous.content && !previous.toolCalls?.length;
}

/**
 * What an assistant message's Copy copies: the whole group of replies it ends (one answer streamed
 * as several messages reads as one), or null while the group goes on — its actions show once, under
 * its last message, not under every line.
 */
function replyGroupText(messages: ChatMessage[], index: number): string | null {
  if (messages[index]?.role !== "assistant") return messages[index]?.content ?? null;
  if (continues(messages, index + 1) && messages[index + 1]?.content) return null;
  let first = index;
  while (first > 0 && continues(messages, first)) first--;
  return messages
    .slice(first, index + 1)
    .map((m) => m.content)
    .filter(Boolean)
    .join("\n\n");
}

function MessageBubble({
  role,
  author = "Concierge",
  content,
  streaming,
  continued,
  copyText = content,
  id,
  onEdit,
  onRegenerate,
  unavailable = null,
}: {
  role: "user" | "assistant";
  author?: string;
  content: string;
  streaming?: boolean;
  continued?: boolean;
  /** What Copy copies; null hides the actions (a later message of the same reply shows them). */
  copyText?: string | null;
  id?: string;
  onEdit?: () => void;
  onRegenerate?: () => void;
  /** Why Edit and Regenerate cannot be used now, or null. */
  unavailable?: string | null;
}) {
  if (role === "user")
    return (
      <div
        className="group/message message user flex max-w-[85%] min-w-0 flex-col self-end"
        data-role={role}
        data-testid="message-user"
        data-message-id={id}
      >
        <div className="sr-only">You</div>
        <div className="message-body rounded-2xl rounded-br-md bg-muted px-4 py-2.5 text-[0.9375rem] leading-relaxed whitespace-pre-wrap [overflow-wrap:anywhere]">
          {content}
        </div>
        <MessageActions text={content} align="end" onEdit={onEdit} unavailable={unavailable} />
      </div>
    );
  return (
    <div
      className={cn("group/message message assistant flex min-w-0 gap-3", streaming && "streaming", continued && "-mt-3")}
      data-role={role}
      data-testid="message-assistant"
      data-message-id={id}
    >
      <span
        className={cn("mt-0.5 grid size-7 shrink-0 place-items-center rounded-full bg-primary-soft text-primary", continued && "invisible")}
        aria-hidden="true"
      >
        <AnchorIcon className="size-3.5" />
      </span>
      <div className="min-w-0 flex-1">
        <div className={cn("message-author mb-0.5 text-sm font-semibold", continued && "sr-only")}>{author}</div>
        <div className="message-body text-[0.9375rem] leading-relaxed [overflow-wrap:anywhere]">
          <Markdown streaming={streaming}>{content}</Markdown>
          {streaming ? (
            <span className="ml-0.5 inline-block h-4 w-1.5 animate-blink bg-foreground/70 align-[-2px]" aria-hidden="true" />
          ) : null}
        </div>
        {streaming || copyText === null ? null : <MessageActions text={copyText} onRegenerate={onRegenerate} unavailable={unavailable} />}
      </div>
    </div>
  );
}

/**
 * Screen readers hear each reply once it is complete — not every streamed word, and not the
 * countdowns on request cards (the conversation itself is not a live region).
 */
function FinishedMessageAnnouncer({ messages, author }: { messages: ChatMessage[]; author: string }) {
  const [initial] = useState(messages.length);
  const last = messages.at(-1);
  const announce = messages.length > initial && last && (last.role === "assistant" || last.role === "system") && last.content;
  return (
    <div className="sr-only" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {announce ? `${last.role === "assistant" ? author : "Harbor"}: ${last.content}` : ""}
    </div>
  );
}

function TypingDots() {
  return (
    <span className="flex gap-1" aria-hidden="true">
      {["[animation-delay:0ms]", "[animation-delay:200ms]", "[animation-delay:400ms]"].map((delay) => (
        <span key={delay} className={cn("size-1.5 animate-pulse-soft rounded-full bg-muted-foreground", delay)} />
      ))}
    </span>
  );
}

/** What happened to the run, said by Harbor rather than by anyone in the conversation (a cancel, for one). */
function SystemNote({ content, live }: { content: string; live?: boolean }) {
  return (
    <p
      className="mx-auto max-w-full rounded-full border bg-surface px-3 py-1 text-center text-xs text-muted-foreground [overflow-wrap:anywhere]"
      role="note"
      // A note seen live (an operator's pause or resume) is this page's; the thread's stored notes are the server's.
      data-testid={live ? "run-note" : "system-note"}
    >
      {content}
    </p>
  );
}

/** A call's approval, decided, kept in view above what the call asked next (an MCP server's question, a consent). */
function DecidedGate({
  call,
  gate,
  result,
  viewerId,
}: {
  call: ChatToolCall;
  gate: InteractionView | undefined;
  result: string | undefined;
  viewerId: string;
}) {
  if (!gate) return null;
  return (
    <ApprovalCard
      call={call}
      interaction={gate}
      result={result}
      viewerId={viewerId}
      busy={false}
      onDecide={() => undefined}
      onWithdraw={() => undefined}
    />
  );
}
