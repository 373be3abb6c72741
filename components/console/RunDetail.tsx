"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { CircleDotIcon, PauseIcon, PlayIcon, ShieldCheckIcon, ShieldXIcon } from "lucide-react";
import { useState, type ReactNode } from "react";
import { ReasonBadge } from "@/components/interactions/reasons";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Input } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import type { RunEvent, SteeringInstruction } from "@/server/domain";
import { RunStatusBadge } from "./RunStatusBadge";

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
    <article className="grid gap-4" data-testid="run-detail">
      <header className="grid gap-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="font-mono text-lg font-semibold tracking-tight">Run {runId.slice(0, 8)}</h2>
          {info ? <RunStatusBadge status={info.status} testId="run-status" /> : null}
          {info?.pauseReason ? <ReasonBadge reason={info.pauseReason} /> : null}
        </div>
        {info ? (
          <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">
            {info.ownerName} · {info.agentId} · priority {info.priority}
            {info.parentRunId ? ` · helper of ${info.parentRunId.slice(0, 8)}` : ""}
            {info.childCount ? ` · ${info.childCount} helper run(s)` : ""}
          </p>
        ) : (
          <Skeleton className="h-4 w-48" />
        )}
      </header>

      <Card className="p-4">
        <h3 className="mb-3 text-sm font-semibold">Steer</h3>
        <fieldset className="grid gap-4" aria-label="Steering" disabled={steer.isPending}>
          <ControlGroup label="Say something to the run">
            <Input
              aria-label="Instruction text"
              placeholder="Context, goal or message…"
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
            <div className="flex flex-wrap gap-2">
              <Button size="sm" onClick={needsText((context) => ({ type: "INJECT_CONTEXT", context }))}>
                Inject context
              </Button>
              <Button size="sm" onClick={needsText((goal) => ({ type: "REDIRECT", goal }))}>
                Redirect
              </Button>
              <Button size="sm" onClick={needsText((message) => ({ type: "USER_MESSAGE", message }))}>
                Send user message
              </Button>
            </div>
          </ControlGroup>
          <ControlGroup label="Flow and gates">
            <div className="flex flex-wrap gap-2">
              <Button size="sm" onClick={() => send({ type: "PAUSE" })}>
                <PauseIcon aria-hidden="true" />
                Pause
              </Button>
              <Button size="sm" onClick={() => send({ type: "RESUME" })}>
                <PlayIcon aria-hidden="true" />
                Resume
              </Button>
              <Button size="sm" onClick={() => send({ type: "APPROVE", ...(text.trim() ? { reason: text.trim() } : {}) })}>
                <ShieldCheckIcon aria-hidden="true" />
                Approve gate
              </Button>
              {confirming === "REJECT" ? (
                <Button
                  size="sm"
                  variant="danger"
                  onClick={() => send({ type: "REJECT", ...(text.trim() ? { reason: text.trim() } : {}) })}
                >
                  Confirm reject
                </Button>
              ) : (
                <Button size="sm" variant="danger" onClick={() => setConfirming("REJECT")}>
                  <ShieldXIcon aria-hidden="true" />
                  Reject gate
                </Button>
              )}
            </div>
          </ControlGroup>
          <ControlGroup label="Priority and cancel">
            <div className="flex flex-wrap items-center gap-2">
              <Input
                type="number"
                aria-label="Priority"
                value={priority}
                onChange={(e) => setPriority(Number(e.target.value))}
                className="h-8 w-20"
              />
              <Button size="sm" onClick={() => send({ type: "PRIORITIZE", priority })}>
                Prioritize
              </Button>
            </div>
            <div className="flex flex-wrap gap-2">
              {confirming === "CANCEL" ? (
                <Button size="sm" variant="danger" onClick={() => send({ type: "CANCEL", mode: "cascade" })}>
                  Confirm cancel with helpers
                </Button>
              ) : confirming === "CANCEL_ISOLATE" ? (
                <Button size="sm" variant="danger" onClick={() => send({ type: "CANCEL", mode: "isolate" })}>
                  Confirm cancel this run only
                </Button>
              ) : (
                <>
                  <Button size="sm" variant="danger" onClick={() => setConfirming("CANCEL")}>
                    Cancel (cascade)
                  </Button>
                  <Button size="sm" variant="danger" onClick={() => setConfirming("CANCEL_ISOLATE")}>
                    Cancel (isolate)
                  </Button>
                </>
              )}
            </div>
          </ControlGroup>
          {steer.error ? <ErrorAlert>{steer.error.message}</ErrorAlert> : null}
          {steer.isSuccess ? (
            <p className="text-sm text-success-fg" role="status">
              Instruction accepted.
            </p>
          ) : null}
        </fieldset>
      </Card>

      <section aria-labelledby={`timeline-${runId}`} className="grid gap-2">
        <h3 id={`timeline-${runId}`} className="text-sm font-semibold">
          Timeline
        </h3>
        <ol className="grid" data-testid="timeline">
          {lines.map((l) => (
            <li key={l.seq} className="relative flex gap-3 pb-3 last:pb-0">
              <span className="absolute top-5 bottom-0 left-[7px] w-px bg-border" aria-hidden="true" />
              <CircleDotIcon className="relative mt-0.5 size-[15px] shrink-0 text-muted-foreground" aria-hidden="true" />
              <span className="min-w-0 text-sm [overflow-wrap:anywhere]">
                <span className="mr-2 font-mono text-xs text-muted-foreground tabular-nums">
                  #{l.seq} · {new Date(l.at).toLocaleTimeString()}
                </span>{" "}
                {l.line}
              </span>
            </li>
          ))}
          {lines.length === 0 ? <li className="text-sm text-muted-foreground">Loading the timeline…</li> : null}
        </ol>
      </section>
    </article>
  );
}

function ControlGroup({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-2">
      <p className="text-xs font-medium text-muted-foreground">{label}</p>
      {children}
    </div>
  );
}
