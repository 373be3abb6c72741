import type { ChatToolCall } from "@/components/chat/types";
import { argEntries, useToolCatalog } from "./tools";

/**
 * A tool call that needs nothing from the user: a browser tool (running, then what it answered),
 * or a server or remote call (working, then done — its answer is the concierge's next message).
 */
export function ToolCallNote({ call, result, where = "browser" }: { call: ChatToolCall; result?: string; where?: "browser" | "server" }) {
  const tools = useToolCatalog();
  const output = result === undefined ? null : parseObject(result);
  const answered = output && argEntries(output);
  const rejected = output?.rejected === true;
  return (
    <div className="tool-note" data-testid="tool-note" data-status={answered ? "done" : "running"}>
      <span className="tool-note-kind">{where === "browser" ? "Browser" : "Tool"}</span>
      <span className="tool-note-title">{tools.title(call.name)}</span>
      <span className="muted small">
        {where === "browser"
          ? answered
            ? `answered by your browser: ${answered.map(([k, v]) => `${k} ${v}`).join(", ")}`
            : "running in your browser…"
          : answered
            ? rejected
              ? "cancelled"
              : "done"
            : "working…"}
      </span>
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
