"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { ChevronRightIcon, CircleDotIcon, PauseIcon, PlayIcon, ShieldCheckIcon, ShieldXIcon } from "lucide-react";
import { useState, type ReactNode } from "react";
import { RunGateDecision } from "@/components/decisions/RunGateDecision";
import { useTRPC } from "@/components/trpc/client";
import { refreshNow } from "@/components/trpc/refresh";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/Input";
import type { RouterOutputs } from "@/components/trpc/types";
import { isTerminalStatus, type RunEvent, type SteeringInstruction } from "@/server/domain";
import { HIDDEN_KEYS, timelineLines, type Names, type Tone } from "./timeline";
import { duration } from "./format";
import { Gated } from "@/components/ui/Gated";
import { RunHeader } from "./RunHeader";

type Instruction = SteeringInstruction;

type RunInfo = RouterOutputs["runs"]["get"];
type Control = "PAUSE" | "RESUME" | "GATE" | "CANCEL" | "TALK";

/**
 * Which instructions apply to the run as it is now; a string says why one does not. The server
 * decides in the end — this keeps an operator from sending what it would refuse or ignore.
 */
export function whyNot(run: RunInfo | undefined, control: Control): string | null {
  if (!run) return "Loading the run…";
  if (isTerminalStatus(run.status)) return `The run has ended (${run.status}).`;
  switch (control) {
    case "PAUSE":
      return run.status === "running" ? null : `Pause applies only while the run is running; it is ${run.status}.`;
    case "RESUME":
      return run.status === "paused" && run.pauseReason === "operator" ? null : "Resume applies only to a run an operator paused.";
    case "GATE":
      return run.status === "paused" && run.pauseReason === "hitl" ? null : "There is no pending approval gate on this run.";
    case "CANCEL":
    case "TALK":
      return null;
  }
}

export function RunDetail({ runId, standalone = false }: { runId: string; standalone?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The run's record refreshes when its feed reports something; a slow poll covers what the feed misses.
  const run = useQuery(trpc.runs.get.queryOptions({ runId }, { refetchInterval: 5000 }));
  const [timeline, setTimeline] = useState<{ seq: number; at: number; event: RunEvent }[]>([]);
  // One live feed per open run (the server caps feeds per user): it ends with the run, and closes
  // when this view closes.
  const feed = useSubscription(
    trpc.runs.events.subscriptionOptions(
      { runId },
      {
        onData: ({ data }) => {
          setTimeline((t) => (t.some((e) => e.seq === data.seq) ? t : [...t, data]));
          if (data.event.type !== "text.delta") void refreshNow(queryClient, trpc.runs.get.queryKey({ runId }));
          // A decision names who made it: the run's requests say who that was.
          if (data.event.type === "pause.resumed") void refreshNow(queryClient, trpc.interactions.list.queryKey());
        },
      },
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

  const info = run.data;
  const lines = timelineLines(timeline, useNames(info));
  const start = timeline[0]?.at ?? (info ? Date.parse(info.createdAt) : 0);
  const why = (control: Control) => whyNot(info, control);
  // One level under the run's own heading: h2 on the run's page (h1), h3 in the console's pane (h2).
  const Heading = standalone ? "h2" : "h3";
  const live = feed.status === "pending" && !(info && isTerminalStatus(info.status));
  return (
    <article className="grid gap-4" data-testid="run-detail">
      <RunHeader runId={runId} info={info} standalone={standalone} loadError={run.isError ? run.error.message : null} />

      <Card className="p-3 sm:p-4">
        <div className="mb-2 flex flex-wrap items-baseline gap-x-3 gap-y-0.5">
          <Heading className="text-sm font-semibold">Steer</Heading>
          <p className="text-xs text-muted-foreground" data-testid="steer-hint">
            {info && isTerminalStatus(info.status)
              ? `The run has ended (${info.status}): no instruction applies any more.`
              : "Greyed-out instructions do not apply now: tap, hover or focus one to see why."}
          </p>
        </div>
        <fieldset className="flex flex-wrap gap-x-6 gap-y-3" aria-label="Steering" disabled={steer.isPending}>
          <ControlGroup label="Say something to the run" wide>
            <Input
              aria-label="Instruction text"
              placeholder="Context, goal or message…"
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
            <div className="flex flex-wrap gap-2">
              <Gated why={why("TALK")}>
                {(disabled) => (
                  <Button size="sm" disabled={disabled} onClick={needsText((context) => ({ type: "INJECT_CONTEXT", context }))}>
                    Inject context
                  </Button>
                )}
              </Gated>
              <Gated why={why("TALK")}>
                {(disabled) => (
                  <Button size="sm" disabled={disabled} onClick={needsText((goal) => ({ type: "REDIRECT", goal }))}>
                    Redirect
                  </Button>
                )}
              </Gated>
              <Gated why={why("TALK")}>
                {(disabled) => (
                  <Button size="sm" disabled={disabled} onClick={needsText((message) => ({ type: "USER_MESSAGE", message }))}>
                    Send user message
                  </Button>
                )}
              </Gated>
            </div>
          </ControlGroup>
          <ControlGroup label="Flow and gates">
            <div className="flex flex-wrap gap-2">
              <Gated why={why("PAUSE")}>
                {(disabled) => (
                  <Button size="sm" disabled={disabled} onClick={() => send({ type: "PAUSE" })}>
                    <PauseIcon aria-hidden="true" />
                    Pause
                  </Button>
                )}
              </Gated>
              <Gated why={why("RESUME")}>
                {(disabled) => (
                  <Button size="sm" disabled={disabled} onClick={() => send({ type: "RESUME" })}>
                    <PlayIcon aria-hidden="true" />
                    Resume
                  </Button>
                )}
              </Gated>
              {/* No open gate: the decision's buttons say why they are off. */}
              {why("GATE") ? (
                <>
                  <Gated why={why("GATE")}>
                    {(disabled) => (
                      <Button size="sm" disabled={disabled}>
                        <ShieldCheckIcon aria-hidden="true" />
                        Approve gate
                      </Button>
                    )}
                  </Gated>
                  <Gated why={why("GATE")}>
                    {(disabled) => (
                      <Button size="sm" variant="danger" disabled={disabled}>
                        <ShieldXIcon aria-hidden="true" />
                        Reject gate
                      </Button>
                    )}
                  </Gated>
                </>
              ) : null}
            </div>
            {/* An open gate is decided with the one decision control (a large transfer's amount is typed first). */}
            {why("GATE") ? null : <RunGateDecision runId={runId} threadId={info?.threadId} />}
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
              <Gated why={why("TALK")}>
                {(disabled) => (
                  <Button size="sm" disabled={disabled} onClick={() => send({ type: "PRIORITIZE", priority })}>
                    Prioritize
                  </Button>
                )}
              </Gated>
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
                  <Gated why={why("CANCEL")}>
                    {(disabled) => (
                      <Button size="sm" variant="danger" disabled={disabled} onClick={() => setConfirming("CANCEL")}>
                        Cancel (cascade)
                      </Button>
                    )}
                  </Gated>
                  <Gated why={why("CANCEL")}>
                    {(disabled) => (
                      <Button size="sm" variant="danger" disabled={disabled} onClick={() => setConfirming("CANCEL_ISOLATE")}>
                        Cancel (isolate)
                      </Button>
                    )}
                  </Gated>
                </>
              )}
            </div>
          </ControlGroup>
          {steer.error ? <ErrorAlert className="basis-full">{steer.error.message}</ErrorAlert> : null}
          {steer.isSuccess ? (
            <p className="basis-full text-sm text-success-fg" role="status">
              Instruction accepted.
            </p>
          ) : null}
        </fieldset>
      </Card>

      <section aria-labelledby={`timeline-${runId}`} className="grid gap-2">
        <div className="flex items-center justify-between gap-2">
          <Heading id={`timeline-${runId}`} className="text-sm font-semibold">
            Timeline
          </Heading>
          <span className="flex items-center gap-1.5 text-xs text-muted-foreground" data-testid="live-tail">
            <span
              className={cn("size-2 rounded-full", live ? "animate-pulse-soft bg-success-fg" : "bg-muted-foreground")}
              aria-hidden="true"
            />
            {live ? "Live" : info && isTerminalStatus(info.status) ? "Ended" : "Connecting…"}
          </span>
        </div>
        <ol className="grid" data-testid="timeline">
          {lines.map((l) => (
            <li key={l.seq} className="relative flex gap-3 pb-3 last:pb-0" data-testid="timeline-entry" data-event={l.type}>
              <span className="absolute top-5 bottom-0 left-[7px] w-px bg-border" aria-hidden="true" />
              <CircleDotIcon className={cn("relative mt-0.5 size-[15px] shrink-0", TONES[l.tone])} aria-hidden="true" />
              {l.payload === null ? (
                <span className="min-w-0 text-sm [overflow-wrap:anywhere]">
                  <Stamp seq={l.seq} at={l.at} start={start} /> {l.label}
                </span>
              ) : (
                <details className="group min-w-0 flex-1 text-sm">
                  <summary className="flex cursor-pointer list-none items-start gap-1 rounded [overflow-wrap:anywhere] [&::-webkit-details-marker]:hidden">
                    <ChevronRightIcon
                      className="mt-0.5 size-4 shrink-0 text-muted-foreground transition-transform group-open:rotate-90"
                      aria-hidden="true"
                    />
                    <span className="min-w-0">
                      <Stamp seq={l.seq} at={l.at} start={start} /> {l.label}
                    </span>
                  </summary>
                  <p className="mt-1.5 font-mono text-[0.6875rem] text-muted-foreground">{l.type}</p>
                  <pre
                    className="mt-1 max-h-72 overflow-auto rounded-md bg-muted p-2 font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere]"
                    data-testid="payload"
                  >
                    {JSON.stringify(l.payload, (key, value: unknown) => (HIDDEN_KEYS.has(key) ? undefined : value), 2)}
                  </pre>
                </details>
              )}
            </li>
          ))}
          {lines.length === 0 ? <li className="text-sm text-muted-foreground">Loading the timeline…</li> : null}
        </ol>
      </section>
    </article>
  );
}

const TONES: Record<Tone, string> = {
  neutral: "text-muted-foreground",
  info: "text-primary",
  success: "text-success-fg",
  warning: "text-warning-fg",
  danger: "text-destructive",
};

/**
 * Names for the people a timeline mentions, by user id: the signed-in user, the run's owner, and
 * whoever requested or answered the run's requests this user can see.
 */
function useNames(info: RunInfo | undefined): Names {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.get.queryOptions());
  const requests = useQuery(trpc.interactions.list.queryOptions({ threadId: info?.threadId ?? "" }, { enabled: Boolean(info?.threadId) }));
  const names = new Map<string, string>();
  for (const r of requests.data ?? []) {
    if (r.requester.name) names.set(r.requester.id, r.requester.name);
    if (r.resolvedBy?.name) names.set(r.resolvedBy.id, r.resolvedBy.name);
  }
  if (info?.ownerName) names.set(info.ownerId, info.ownerName);
  if (me.data) names.set(me.data.id, `${me.data.name} (you)`);
  return names;
}

function Stamp({ seq, at, start }: { seq: number; at: number; start: number }) {
  const offset = Math.max(0, at - start);
  return (
    <time
      dateTime={new Date(at).toISOString()}
      title={new Date(at).toLocaleString()}
      className="mr-2 font-mono text-xs text-muted-foreground tabular-nums"
    >
      #{seq} · +{offset < 1000 ? `${offset}ms` : offset < 60_000 ? `${(offset / 1000).toFixed(1)}s` : duration(start, at)}
    </time>
  );
}

/** One group of the steering toolbar; `wide` takes a line of its own (the text box). */
function ControlGroup({ label, wide = false, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div role="group" aria-label={label} className={cn("grid content-start gap-1.5", wide && "basis-full")}>
      <p className="text-xs font-medium text-muted-foreground" aria-hidden="true">
        {label}
      </p>
      {children}
    </div>
  );
}
