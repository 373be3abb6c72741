"use client";

import { useId, useState, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Textarea } from "@/components/ui/Input";
import { messageLimit } from "./message-limit";

/**
 * One of the user's messages, being edited in place: Send replaces it (and everything after it)
 * with the new text and asks again; Cancel, or Escape, leaves it as it was. Enter sends, Shift +
 * Enter makes a new line — as in the composer, with the same limit and nothing ever cut.
 */
export function MessageEditor({
  initial,
  maxChars,
  busy,
  unavailable,
  onSend,
  onCancel,
}: {
  initial: string;
  maxChars: number;
  /** The edit is on its way: nothing more is sent. */
  busy: boolean;
  /** Why it cannot be sent now (a run works on the conversation), or null. */
  unavailable: string | null;
  onSend(text: string): void;
  onCancel(): void;
}) {
  const [text, setText] = useState(initial);
  const counterId = useId();
  const { length, over, near, tooLong, counter } = messageLimit(text, maxChars);
  const sendable = !busy && !unavailable && length > 0 && over <= 0;
  const send = () => {
    if (sendable) onSend(text.trim());
  };
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      send();
    }
  }
  return (
    <form
      className="flex w-full flex-col gap-2 rounded-2xl border border-input bg-card p-2 shadow-sm focus-within:border-ring focus-within:ring-2 focus-within:ring-ring/40"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
      data-testid="message-editor"
    >
      <Textarea
        // The box opens where the user asked for it: writing starts at once.
        autoFocus
        onFocus={(e) => e.currentTarget.setSelectionRange(e.currentTarget.value.length, e.currentTarget.value.length)}
        aria-label="Edit your message"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        readOnly={busy}
        aria-invalid={over > 0 || undefined}
        aria-describedby={near || unavailable ? counterId : undefined}
        className="max-h-72 min-h-16 border-0 bg-transparent px-2 shadow-none focus-visible:outline-none [field-sizing:content]"
      />
      <div className="flex flex-wrap items-center justify-end gap-2">
        <p
          id={counterId}
          className={cn("mr-auto px-2 text-xs tabular-nums", over > 0 ? "font-medium text-danger-fg" : "text-muted-foreground")}
          aria-live="polite"
        >
          {unavailable ? <span data-testid="message-editor-why">{unavailable}</span> : (tooLong ?? (near ? counter : null))}
        </p>
        <Button variant="ghost" size="sm" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" size="sm" disabled={!sendable}>
          {busy ? "Sending…" : "Send"}
        </Button>
      </div>
    </form>
  );
}
