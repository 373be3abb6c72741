export interface ChatToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ChatMessage {
  id: string;
  role: "user" | "assistant" | "system" | "developer" | "tool";
  content: string;
  /** An assistant message's tool calls. */
  toolCalls?: ChatToolCall[];
  /** A tool message's call. */
  toolCallId?: string;
}

/** An answer to one open interrupt, exactly a `resume[]` entry. */
export interface ResumeAnswer {
  interruptId: string;
  status: "resolved" | "cancelled";
  /** An approval's `{ approved, reason? }`, a private form's fields, a browser tool's output. */
  payload?: Record<string, unknown>;
}
