import type { ChatToolCall } from "@/components/chat/types";
import { argEntries, toolTitle } from "./tools";

/** A browser tool's call in the conversation: running, then what it answered. */
export function ToolCallNote({ call, result }: { call: ChatToolCall; result?: string }) {
  const answered = result === undefined ? null : argEntries(parseObject(result));
  return (
    <div className="tool-note" data-testid="tool-note" data-status={answered ? "done" : "running"}>
      <span className="tool-note-kind">Browser</span>
      <span className="tool-note-title">{toolTitle(call.name)}</span>
      <span className="muted small">
        {answered ? `answered by your browser: ${answered.map(([k, v]) => `${k} ${v}`).join(", ")}` : "running in your browser…"}
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
