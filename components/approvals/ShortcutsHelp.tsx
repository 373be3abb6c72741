"use client";

import { KeyboardIcon } from "lucide-react";
import { Popover } from "radix-ui";
import { Button } from "@/components/ui/Button";

export const SHORTCUTS: [keys: string, what: string][] = [
  ["j", "Next request"],
  ["k", "Previous request"],
  ["a", "Approve the request on screen (asks to confirm)"],
  ["r", "Reject the request on screen (asks to confirm)"],
  ["Enter", "Confirm"],
  ["Esc", "Cancel the confirmation"],
  ["?", "Show these shortcuts"],
];

/** The inbox's keyboard shortcuts, in a popover (also opened with "?"). */
export function ShortcutsHelp({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  return (
    <Popover.Root open={open} onOpenChange={onOpenChange}>
      <Popover.Trigger asChild>
        <Button variant="ghost" size="icon-sm" aria-label="Keyboard shortcuts">
          <KeyboardIcon aria-hidden="true" />
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          sideOffset={6}
          className="z-50 w-72 max-w-[calc(100vw-1rem)] animate-fade-in rounded-lg border bg-card p-3 text-sm text-foreground shadow-md"
          aria-label="Keyboard shortcuts"
          data-testid="shortcuts-help"
        >
          <p className="mb-2 font-medium">Keyboard shortcuts</p>
          <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1.5">
            {SHORTCUTS.map(([keys, what]) => (
              <div key={keys} className="col-span-2 grid grid-cols-subgrid items-baseline">
                <dt>
                  <kbd className="rounded border bg-muted px-1.5 py-0.5 font-mono text-xs">{keys}</kbd>
                </dt>
                <dd className="text-muted-foreground">{what}</dd>
              </div>
            ))}
          </dl>
          <p className="mt-2 text-xs text-muted-foreground">Shortcuts never fire while you type in a field.</p>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

/** True when a key press belongs to a field the user types in (shortcuts must not fire then). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}
