"use client";

import { InfoIcon } from "lucide-react";
import { Popover, Tooltip } from "radix-ui";
import type { ReactNode } from "react";

/**
 * A button that, when it does not apply, is disabled and says why: on hover and keyboard focus (a
 * tooltip), and on a tap, a click or Enter (a popover) — a phone has no hover, so a tooltip alone
 * would never show there.
 */
export function Gated({ why, children }: { why: string | null; children: (disabled: boolean) => ReactNode }) {
  if (!why) return <>{children(false)}</>;
  return (
    <Popover.Root>
      <Tooltip.Provider delayDuration={300}>
        <Tooltip.Root>
          <Tooltip.Trigger asChild>
            <Popover.Trigger asChild>
              {/* A disabled button gets no pointer or focus: the wrapper carries the hint and opens it. */}
              <span
                tabIndex={0}
                title={why}
                className="inline-flex cursor-not-allowed rounded-lg outline-none focus-visible:ring-2 focus-visible:ring-ring"
                data-why={why}
              >
                {children(true)}
              </span>
            </Popover.Trigger>
          </Tooltip.Trigger>
          <Tooltip.Portal>
            <Tooltip.Content
              side="bottom"
              sideOffset={6}
              className="z-50 max-w-xs animate-fade-in rounded-md bg-foreground px-2 py-1 text-xs text-background shadow-md"
            >
              {why}
            </Tooltip.Content>
          </Tooltip.Portal>
        </Tooltip.Root>
      </Tooltip.Provider>
      <Popover.Portal>
        <Popover.Content
          side="bottom"
          align="start"
          sideOffset={6}
          collisionPadding={8}
          className="z-50 flex max-w-[min(20rem,calc(100vw-1rem))] animate-fade-in items-start gap-1.5 rounded-md border bg-card px-2.5 py-2 text-xs text-foreground shadow-md outline-none"
          data-testid="steer-why"
        >
          <InfoIcon className="mt-px size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
          <span role="status">{why}</span>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
