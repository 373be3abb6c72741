import type { ChatToolCall } from "@/components/chat/types";
import { CheckIcon, CircleAlertIcon, GlobeIcon, LoaderCircleIcon, WrenchIcon } from "lucide-react";
import type { ToolProgress } from "@/components/chat/useAgentRun";
import { argEntries, useToolCatalog } from "./tools";

/** "2 of 3 · Sorting the results…": the tool's own words for where it is. */
function workingOn(progress: ToolProgress): string {
  const step = progress.total !== undefined ? `${progress.progress} of ${progress.total}` : `${progress.progress}`;
  return progress.message ? `${step} · ${progress.message}…` : `${step}…`;
}

/**
 * A tool call that needs nothing from the user: a browser tool (running, then what it answered),
 * or a server or remote call (working, then done — its answer is the concierge's next message).
 */
export function ToolCallNote({
  call,
  result,
  where = "browser",
  progress,
}: {
  call: ChatToolCall;
  result?: string;
  where?: "browser" | "server";
  /** How far the call has come, as its tool reports while it works. */
  progress?: ToolProgress;
}) {
  const tools = useToolCatalog();
  const refusal = refusedReason(result);
  if (refusal !== undefined) return <RefusedCall title={tools.title(call.name)} reason={refusal} />;
  const output = result === undefined ? null : parseObject(result);
  const answered = output && argEntries(output);
  const rejected = output?.rejected === true;
  const Icon = where === "browser" ? GlobeIcon : WrenchIcon;
  return (
    <div
      className="flex max-w-full min-w-0 items-center gap-2 self-start rounded-full border bg-card py-1 pr-3 pl-1.5 text-sm shadow-xs"
      data-testid="tool-note"
      data-status={answered ? "done" : "running"}
    >
      <span className="grid size-6 shrink-0 place-items-center rounded-full bg-muted text-muted-foreground">
        <Icon className="size-3.5" aria-hidden="true" />
      </span>
      <span className="sr-only">{where === "browser" ? "Browser" : "Tool"}</span>
      <span className="shrink-0 font-medium">{tools.title(call.name)}</span>
      <span className="min-w-0 truncate text-muted-foreground">
        {where === "browser"
          ? answered
            ? `answered by your browser: ${answered.map(([k, v]) => `${k} ${v}`).join(", ")}`
            : "running in your browser…"
          : answered
            ? rejected
              ? "cancelled"
              : "done"
            : progress
              ? workingOn(progress)
              : "working…"}
      </span>
      {answered && !rejected ? (
        <CheckIcon className="size-3.5 shrink-0 text-success-fg" aria-hidden="true" />
      ) : !answered ? (
        <LoaderCircleIcon className="size-3.5 shrink-0 animate-spin text-muted-foreground" aria-hidden="true" />
      ) : null}
    </div>
  );
}

/**
 * Why Harbor refused a call before it ran (arguments outside the tool's schema, an unknown tool),
 * or undefined for a call that ran or waits: the runtime answers a refused call with
 * `{ error, ran: false }` and never opens a request for it.
 */
export function refusedReason(result: string | undefined): string | undefined {
  if (result === undefined) return undefined;
  const output = parseObject(result);
  return output.ran === false && typeof output.error === "string" ? output.error : undefined;
}

/** A call that never ran: a failed step, with the reason in full (it wraps; it is what the user needs). */
function RefusedCall({ title, reason }: { title: string; reason: string }) {
  return (
    <div
      className="flex max-w-full min-w-0 items-start gap-2 self-start rounded-xl border border-danger-border bg-card py-1.5 pr-3 pl-1.5 text-sm shadow-xs"
      data-testid="tool-note"
      data-status="failed"
      role="note"
    >
      <span className="grid size-6 shrink-0 place-items-center rounded-full bg-danger-bg text-danger-fg">
        <CircleAlertIcon className="size-3.5" aria-hidden="true" />
      </span>
      <p className="min-w-0 self-center [overflow-wrap:anywhere]">
        <span className="font-medium">{title}</span> <span className="text-danger-fg">failed — not run.</span>{" "}
        <span className="text-muted-foreground">{reason}</span>
      </p>
    </div>
  );
}

function parseObject(content: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(content);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return { result: content };
}
