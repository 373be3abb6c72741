"use client";

import { CheckIcon, CopyIcon, PencilIcon, RefreshCwIcon, type LucideIcon } from "lucide-react";
import type { ComponentProps } from "react";
import { Gated } from "@/components/ui/Gated";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Tooltip } from "@/components/ui/Tooltip";
import { useCopy } from "./useCopy";

/**
 * What can be done with a finished message, under it: copy its text (as written, Markdown and
 * all); edit it (the user's own messages) or regenerate it (the conversation's last reply). On a
 * pointer device the row shows on hover or focus; on touch it is always there. While a run works
 * on the conversation, Edit and Regenerate stay in place, disabled, and say why on hover, focus or tap.
 */
export function MessageActions({
  text,
  align = "start",
  onEdit,
  onRegenerate,
  unavailable = null,
}: {
  text: string;
  align?: "start" | "end";
  onEdit?: () => void;
  onRegenerate?: () => void;
  /** Why Edit and Regenerate cannot be used now, or null. */
  unavailable?: string | null;
}) {
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
        <ActionButton label={copied ? "Copied" : "Copy"} icon={copied ? CheckIcon : CopyIcon} onClick={() => void copy(text)} />
      </Tooltip>
      {onEdit ? <RewindAction label="Edit" icon={PencilIcon} unavailable={unavailable} onClick={onEdit} /> : null}
      {onRegenerate ? <RewindAction label="Regenerate" icon={RefreshCwIcon} unavailable={unavailable} onClick={onRegenerate} /> : null}
    </div>
  );
}

/** Edit or Regenerate: a hint on hover and focus while it can be used, the reason why not when it cannot. */
function RewindAction({
  label,
  icon,
  unavailable,
  onClick,
}: {
  label: string;
  icon: LucideIcon;
  unavailable: string | null;
  onClick(): void;
}) {
  if (!unavailable) {
    return (
      <Tooltip content={label} side="bottom">
        <ActionButton label={label} icon={icon} onClick={onClick} />
      </Tooltip>
    );
  }
  return <Gated why={unavailable}>{(disabled) => <ActionButton label={label} icon={icon} onClick={onClick} disabled={disabled} />}</Gated>;
}

/** An icon button of the row; the rest of its props pass through (a tooltip's trigger adds its own). */
function ActionButton({ label, icon: Icon, ...props }: { label: string; icon: LucideIcon } & ComponentProps<"button">) {
  return (
    <Button
      variant="ghost"
      size="icon-sm"
      // Disabled, it keeps the row's quiet look: no dashed box under a message.
      className="text-muted-foreground hover:text-foreground disabled:border-0 disabled:bg-transparent disabled:opacity-50"
      aria-label={label}
      {...props}
    >
      <Icon className="!size-4" aria-hidden="true" />
    </Button>
  );
}
