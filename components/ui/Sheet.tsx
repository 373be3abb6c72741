"use client";

import { XIcon } from "lucide-react";
import { Dialog as SheetPrimitive } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

/** A drawer: a modal dialog sliding in from a side (focus trapped, Escape closes, focus returns to the trigger). */
export const Sheet = SheetPrimitive.Root;
export const SheetTrigger = SheetPrimitive.Trigger;
export const SheetClose = SheetPrimitive.Close;

export function SheetContent({
  side = "left",
  title,
  description,
  className,
  children,
  ...props
}: ComponentProps<typeof SheetPrimitive.Content> & { side?: "left" | "right"; title: ReactNode; description?: ReactNode }) {
  return (
    <SheetPrimitive.Portal>
      <SheetPrimitive.Overlay className="fixed inset-0 z-40 animate-fade-in bg-black/40 backdrop-blur-[1px]" />
      <SheetPrimitive.Content
        className={cn(
          "fixed inset-y-0 z-50 flex w-[min(20rem,88vw)] flex-col bg-surface shadow-xl outline-none",
          side === "left" ? "left-0 animate-sheet-in-left border-r" : "right-0 animate-sheet-in-right border-l",
          className,
        )}
        {...(description ? {} : { "aria-describedby": undefined })}
        {...props}
      >
        <div className="flex h-14 shrink-0 items-center justify-between gap-2 border-b px-4">
          <SheetPrimitive.Title className="text-base font-semibold">{title}</SheetPrimitive.Title>
          <SheetPrimitive.Close
            className="inline-flex size-9 cursor-pointer items-center justify-center rounded-lg text-muted-foreground hover:bg-accent hover:text-foreground"
            aria-label="Close"
          >
            <XIcon className="size-5" aria-hidden="true" />
          </SheetPrimitive.Close>
        </div>
        {description ? <SheetPrimitive.Description className="sr-only">{description}</SheetPrimitive.Description> : null}
        <div className="min-h-0 flex-1 overflow-y-auto">{children}</div>
      </SheetPrimitive.Content>
    </SheetPrimitive.Portal>
  );
}
