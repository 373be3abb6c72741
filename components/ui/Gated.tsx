"use client";

import { Tooltip } from "radix-ui";
import { useState, type ReactNode } from "react";

/**
 * A button that, when it does not apply, is disabled and says why: on hover and keyboard focus,
 * and on a tap, a click or Enter — a phone has no hover, so a hover-only hint would never show
 * there. The hint stays until the wrapper loses focus or Escape is pressed.
 */
export function Gated({ why, children }: { why: string | null; children: (disabled: boolean) => ReactNode }) {
  const [hovered, setHovered] = useState(false);
  const [tapped, setTapped] = useState(false);
  if (!why) return <>{children(false)}</>;
  return (
    <Tooltip.Provider delayDuration={300}>
      <Tooltip.Root open={hovered || tapped} onOpenChange={setHovered}>
        <Tooltip.Trigger asChild>
          {/* A disabled button gets no pointer or focus: the wrapper carries the hint. */}
          <span
            tabIndex={0}
            title={why}
            className="inline-flex cursor-not-allowed rounded-lg outline-none focus-visible:ring-2 focus-visible:ring-ring"
            data-why={why}
            onClick={() => setTapped(true)}
            onBlur={() => setTapped(false)}
            onKeyDown={(e) => {
              if (e.key === "Enter" || e.key === " ") {
                e.preventDefault();
                setTapped(true);
              }
            }}
          >
            {children(true)}
          </span>
        </Tooltip.Trigger>
        <Tooltip.Portal>
          <Tooltip.Content
            side="bottom"
            align="start"
            sideOffset={6}
            collisionPadding={8}
            onEscapeKeyDown={() => setTapped(false)}
            className="z-50 max-w-[min(20rem,calc(100vw-1rem))] animate-fade-in rounded-md bg-foreground px-2 py-1 text-xs text-background shadow-md"
          >
            {why}
          </Tooltip.Content>
        </Tooltip.Portal>
      </Tooltip.Root>
    </Tooltip.Provider>
  );
}
