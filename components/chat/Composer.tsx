"use client";

import type { KeyboardEvent, Ref } from "react";
import { ArrowUpIcon, SquareIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { Textarea } from "@/components/ui/Input";
import { Tooltip } from "@/components/ui/Tooltip";

export interface ComposerProps {
  /** The message box, for the conversation to focus it. */
  inputRef: Ref<HTMLTextAreaElement>;
  draft: string;
  onDraft(text: string): void;
  onSend(): void;
  /** While a run works: Stop instead of Send. */
  running: boolean;
  stopping: boolean;
  onStop(): void;
  /** The box takes no text (a request above waits for an answer, or a run works). */
  disabled: boolean;
  placeholder: string;
}

/** The box a message is written in, with Send (or Stop while a run works) beside it. */
export function Composer({ inputRef, draft, onDraft, onSend, running, stopping, onStop, disabled, placeholder }: ComposerProps) {
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      onSend();
    }
  }
  return (
    <div className="shrink-0 bg-background px-3 pt-2 pb-3 sm:px-6 sm:pb-5">
      <form
        className="mx-auto flex w-full max-w-3xl items-end gap-2 rounded-2xl border border-input bg-card p-2 shadow-sm transition-colors focus-within:border-ring focus-within:ring-2 focus-within:ring-ring/40 has-[textarea:disabled]:bg-muted"
        onSubmit={(e) => {
          e.preventDefault();
          onSend();
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
          maxLength={20_000}
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
        ) : (
          <Tooltip content="Send (Enter)" side="top">
            <Button
              type="submit"
              variant="primary"
              size="icon"
              className="rounded-xl disabled:border-transparent"
              aria-label="Send"
              disabled={disabled || draft.trim() === ""}
            >
              <ArrowUpIcon className="!size-5" aria-hidden="true" />
            </Button>
          </Tooltip>
        )}
      </form>
      <p className="mx-auto mt-2 hidden max-w-3xl text-center text-xs text-muted-foreground sm:block">
        Enter to send · Shift + Enter for a new line
      </p>
    </div>
  );
}
