"use client";

import type { KeyboardEvent, ReactNode, Ref } from "react";
import { ArrowUpIcon, SquareIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Textarea } from "@/components/ui/Input";
import { Tooltip } from "@/components/ui/Tooltip";
import { messageLimit } from "./message-limit";

export interface ComposerProps {
  /** The message box, for the conversation to focus it. */
  inputRef: Ref<HTMLTextAreaElement>;
  draft: string;
  onDraft(text: string): void;
  onSend(): void;
  /** While a run works: Stop, and Send beside it once there is a message (the thread's double-texting policy decides what it does). */
  running: boolean;
  stopping: boolean;
  onStop(): void;
  /** The box takes no text (a request above waits for an answer). */
  disabled: boolean;
  placeholder: string;
  /** The most characters one message may have: the server's own limit (HARBOR_MAX_MESSAGE_CHARS). */
  maxChars: number;
  /** Shown right above the box, e.g. that the server cannot be reached. */
  notice?: ReactNode;
}

/** The box a message is written in, with Send (and Stop while a run works) beside it. */
export function Composer({
  inputRef,
  draft,
  onDraft,
  onSend,
  running,
  stopping,
  onStop,
  disabled,
  placeholder,
  maxChars,
  notice,
}: ComposerProps) {
  const { length, over, near, tooLong, counter } = messageLimit(draft, maxChars);
  const send = () => {
    if (over <= 0) onSend();
  };
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      send();
    }
  }
  return (
    <div className="shrink-0 bg-background px-3 pt-2 pb-3 sm:px-6 sm:pb-5">
      {notice}
      <form
        className="mx-auto flex w-full max-w-3xl items-end gap-2 rounded-2xl border border-input bg-card p-2 shadow-sm transition-colors focus-within:border-ring focus-within:ring-2 focus-within:ring-ring/40 has-[textarea:disabled]:bg-muted"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <Textarea
          ref={inputRef}
          name="message"
          aria-label="Message"
          placeholder={placeholder}
          value={draft}
          onChange={(e) => onDraft(e.target.value)}
          onKeyDown={onKeyDown}
          disabled={disabled}
          rows={1}
          aria-invalid={over > 0 || undefined}
          aria-describedby={near ? "composer-counter" : undefined}
          className="max-h-48 min-h-10 flex-1 border-0 bg-transparent px-2 shadow-none focus-visible:outline-none disabled:bg-transparent disabled:opacity-100 [field-sizing:content]"
        />
        {running ? (
          <Tooltip content="Stop the run" side="top">
            <Button
              variant="secondary"
              size="icon"
              className="rounded-xl"
              aria-label={stopping ? "Stopping…" : "Stop"}
              disabled={stopping}
              onClick={onStop}
              data-testid="stop-run"
            >
              <SquareIcon className="!size-4 fill-current" aria-hidden="true" />
            </Button>
          </Tooltip>
        ) : null}
        {/* While a run works, Send appears next to Stop once there is something to send. */}
        {!running || length > 0 ? (
          <Tooltip content={over > 0 ? "Too long to send" : "Send (Enter)"} side="top">
            <Button
              type="submit"
              variant="primary"
              size="icon"
              className="rounded-xl disabled:border-transparent"
              aria-label="Send"
              disabled={disabled || length === 0 || over > 0}
            >
              <ArrowUpIcon className="!size-5" aria-hidden="true" />
            </Button>
          </Tooltip>
        ) : null}
      </form>
      {near ? (
        <p
          id="composer-counter"
          className={cn(
            "mx-auto mt-2 flex max-w-3xl flex-wrap justify-end gap-x-3 text-xs tabular-nums",
            over > 0 ? "font-medium text-danger-fg" : "text-muted-foreground",
          )}
          aria-live="polite"
        >
          {tooLong ? <span data-testid="composer-limit">{tooLong}</span> : null}
          <span data-testid="composer-counter">{counter}</span>
        </p>
      ) : (
        <p className="mx-auto mt-2 hidden max-w-3xl text-center text-xs text-muted-foreground sm:block">
          Enter to send · Shift + Enter for a new line
        </p>
      )}
    </div>
  );
}
