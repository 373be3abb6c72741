"use client";

import { useEffect, useRef, type RefObject } from "react";
import type { InteractionView } from "@/components/trpc/types";

/** Fields the keyboard fills in: the answer goes there first. */
const FIELD =
  'input:not([disabled]):not([type="checkbox"]):not([type="radio"]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled])';

/**
 * A request that just opened takes the focus, so the keyboard is where the answer goes: its
 * `data-autofocus` control (the action that moves forward, e.g. Connect), else its first field,
 * else the card itself. Never a button by position: the first one is often Cancel or Reject, and a
 * stray Enter must not dismiss or refuse a request. Not one waiting on an approver either: the
 * requester has nothing to answer there. While `busy` the card's controls are disabled; the focus
 * comes once they are not.
 */
export function useRequestFocus(container: RefObject<HTMLElement | null>, blockers: readonly InteractionView[], busy: boolean): void {
  const focused = useRef(new Set<string>());
  useEffect(() => {
    if (busy) return;
    const fresh = blockers.filter((i) => !focused.current.has(i.interactionId));
    for (const i of fresh) focused.current.add(i.interactionId);
    if (!fresh.some((i) => i.kind !== "operator" && i.policy !== "approvers")) return;
    const cards = container.current?.querySelectorAll<HTMLElement>("article");
    const card = cards?.[cards.length - 1];
    if (!card) return;
    const target = card.querySelector<HTMLElement>("[data-autofocus]:not([disabled])") ?? card.querySelector<HTMLElement>(FIELD);
    if (target) return target.focus({ preventScroll: true });
    // Focusable from script only: Tab from here reaches the card's own controls next.
    card.tabIndex = -1;
    card.focus({ preventScroll: true });
  }, [container, blockers, busy]);
}
