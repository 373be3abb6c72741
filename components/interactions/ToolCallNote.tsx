import type { ChatToolCall } from "@/components/chat/types";
import { CheckIcon, GlobeIcon, LoaderCircleIcon, WrenchIcon } from "lucide-react";
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

function parseObject(content: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(content);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return { result: content };
}
