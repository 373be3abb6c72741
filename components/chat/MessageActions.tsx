"use client";

import { CheckIcon, CopyIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Tooltip } from "@/components/ui/Tooltip";
import { useCopy } from "./useCopy";

/**
 * What can be done with a finished message, under it: copy its text (as written, Markdown and
 * all). On a pointer device the row shows on hover or focus; on touch it is always there.
 */
export function MessageActions({ text, align = "start" }: { text: string; align?: "start" | "end" }) {
  const { copied, copy } = useCopy();
  return (
    <div
      className={cn(
        "mt-1 flex gap-0.5 transition-opacity [@media(hover:hover)]:opacity-0 [@media(hover:hover)]:group-focus-within/message:opacity-100 [@media(hover:hover)]:group-hover/message:opacity-100",
        align === "end" && "justify-end",
      )}
      data-testid="message-actions"
    >
      <Tooltip content={copied ? "Copied" : "Copy"} side="bottom">
        <Button
          variant="ghost"
          size="icon-sm"
          className="text-muted-foreground hover:text-foreground"
          aria-label={copied ? "Copied" : "Copy"}
          onClick={() => void copy(text)}
        >
          {copied ? <CheckIcon className="!size-4" aria-hidden="true" /> : <CopyIcon className="!size-4" aria-hidden="true" />}
        </Button>
      </Tooltip>
    </div>
  );
}
