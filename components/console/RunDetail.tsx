"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { ReasonBadge } from "@/components/interactions/reasons";
import { useTRPC } from "@/components/trpc/client";
import type { RunEvent, SteeringInstruction } from "@/server/domain";

type Instruction = SteeringInstruction;

/** One line of the timeline: what happened, in a few words (text streams are folded together). */
function describe(event: RunEvent): string | null {
  switch (event.type) {
    case "text.delta":
    case "text.started":
      return null;
    case "text.ended":
      return "said a message";
    case "steer.applied":
      return `steered: ${event.instruction}${event.detail ? ` — ${event.detail}` : ""}`;
    case "pause.requested":
      return `paused (${event.reason}): ${event.message}`;
    case "pause.resumed":
      return `resumed: ${event.decision}`;
    case "tool.call":
      return `called ${event.name}`;
    case "tool.result":
      return "tool result";
    case "run.failed":
      return `failed: ${event.code}`;
    case "run.completed":
      return event.status ? `ended ${event.status}` : "completed";
    case "run.queued":
      return `queued: ${event.position} ahead`;
    case "run.cancelled":
      return `cancelled by ${event.by === "owner" ? "its owner" : event.by === "operator" ? "an operator" : "Harbor"}`;
    case "children.started":
      return `started ${event.runIds.length} helper run(s)`;
    default:
      return event.type;
  }
}

export function RunDetail({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const run = useQuery(trpc.runs.get.queryOptions({ runId }, { refetchInterval: 1000 }));
  const [timeline, setTimeline] = useState<{ seq: number; at: number; event: RunEvent }[]>([]);
  useSubscription(
    trpc.runs.events.subscriptionOptions(
      { runId },
      { onData: ({ data }) => setTimeline((t) => (t.some((e) => e.seq === data.seq) ? t : [...t, data])) },
    ),
  );
  const steer = useMutation(
    trpc.runs.steer.mutationOptions({ onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey() }) }),
  );
  const [text, setText] = useState("");
  const [priority, setPriority] = useState(0);
  const [confirming, setConfirming] = useState<"CANCEL" | "CANCEL_ISOLATE" | "REJECT" | null>(null);
  const send = (instruction: Instruction) => {
    setConfirming(null);
    steer.mutate({ runId, instruction });
  };
  const needsText = (build: (value: string) => Instruction) => () => {
    if (text.trim()) send(build(text.trim()));
  };

  const lines = timeline.flatMap((e) => {
    const line = describe(e.event);
    return line ? [{ seq: e.seq, at: e.at, line }] : [];
  });
  const info = run.data;
  return (
    <article className="run-detail" data-testid="run-detail">
      <header className="approval-head">
        <h2>Run {runId.slice(0, 8)}</h2>
        {info ? (
          <span className={`badge status-${info.status}`} data-testid="run-status">
            {info.status}
          </span>
        ) : null}
        {info?.pauseReason ? <ReasonBadge reason={info.pauseReason} /> : null}
      </header>
      {info ? (
        <p className="muted small">
          {info.ownerName} · {info.agentId} · priority {info.priority}
          {info.parentRunId ? ` · helper of ${info.parentRunId.slice(0, 8)}` : ""}
          {info.childCount ? ` · ${info.childCount} helper run(s)` : ""}
        </p>
      ) : null}

      <fieldset className="controls" aria-label="Steering" disabled={steer.isPending}>
        <input
          aria-label="Instruction text"
          placeholder="Context, goal or message…"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <div className="control-row">
          <button type="button" className="button small" onClick={needsText((context) => ({ type: "INJECT_CONTEXT", context }))}>
            Inject context
          </button>
          <button type="button" className="button small" onClick={needsText((goal) => ({ type: "REDIRECT", goal }))}>
            Redirect
          </button>
          <button type="button" className="button small" onClick={needsText((message) => ({ type: "USER_MESSAGE", message }))}>
            Send user message
          </button>
        </div>
        <div className="control-row">
          <button type="button" className="button small" onClick={() => send({ type: "PAUSE" })}>
            Pause
          </button>
          <button type="button" className="button small" onClick={() => send({ type: "RESUME" })}>
            Resume
          </button>
          <button
            type="button"
            className="button small"
            onClick={() => send({ type: "APPROVE", ...(text.trim() ? { reason: text.trim() } : {}) })}
          >
            Approve gate
          </button>
          {confirming === "REJECT" ? (
            <button
              type="button"
              className="button small danger-outline"
              onClick={() => send({ type: "REJECT", ...(text.trim() ? { reason: text.trim() } : {}) })}
            >
              Confirm reject
            </button>
          ) : (
            <button type="button" className="button small danger-outline" onClick={() => setConfirming("REJECT")}>
              Reject gate
            </button>
          )}
        </div>
        <div className="control-row">
          <label className="small">
            Priority{" "}
            <input
              type="number"
              aria-label="Priority"
              value={priority}
              onChange={(e) => setPriority(Number(e.target.value))}
              style={{ width: "4.5rem" }}
            />
          </label>
          <button type="button" className="button small" onClick={() => send({ type: "PRIORITIZE", priority })}>
            Prioritize
          </button>
          {confirming === "CANCEL" ? (
            <button type="button" className="button small danger-outline" onClick={() => send({ type: "CANCEL", mode: "cascade" })}>
              Confirm cancel with helpers
            </button>
          ) : confirming === "CANCEL_ISOLATE" ? (
            <button type="button" className="button small danger-outline" onClick={() => send({ type: "CANCEL", mode: "isolate" })}>
              Confirm cancel this run only
            </button>
          ) : (
            <>
              <button type="button" className="button small danger-outline" onClick={() => setConfirming("CANCEL")}>
                Cancel (cascade)
              </button>
              <button type="button" className="button small danger-outline" onClick={() => setConfirming("CANCEL_ISOLATE")}>
                Cancel (isolate)
              </button>
            </>
          )}
        </div>
        {steer.error ? (
          <p className="error small" role="alert">
            {steer.error.message}
          </p>
        ) : null}
        {steer.isSuccess ? (
          <p className="muted small" role="status">
            Instruction accepted.
          </p>
        ) : null}
      </fieldset>

      <h3 className="small muted">Timeline</h3>
      <ol className="timeline" data-testid="timeline">
        {lines.map((l) => (
          <li key={l.seq}>
            <span className="muted small">
              #{l.seq} · {new Date(l.at).toLocaleTimeString()}
            </span>{" "}
            {l.line}
          </li>
        ))}
        {lines.length === 0 ? <li className="muted small">Loading the timeline…</li> : null}
      </ol>
    </article>
  );
}
