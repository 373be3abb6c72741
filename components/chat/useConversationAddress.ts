"use client";

import { usePathname } from "next/navigation";
import { useState } from "react";

/** The thread a `/chat/<id>` path names; null for `/chat`. */
export function threadIdOf(pathname: string | null): string | null {
  const match = /^\/chat\/([^/]+)$/.exec(pathname ?? "");
  return match ? decodeURIComponent(match[1]!) : null;
}

/**
 * The conversation the page shows, and a key that changes only when it is another conversation.
 * A new conversation takes its address (`/chat/<id>`) the moment its first run starts, with
 * `history.replaceState` — not a navigation, so the reply streaming in stays on the page (and a
 * server that went away cannot turn the tab into the browser's error page). Going back to `/chat`
 * from there is a fresh conversation again.
 */
export function useConversationAddress(pageThreadId: string | null) {
  const fromPath = threadIdOf(usePathname());
  const threadId = pageThreadId ?? fromPath;
  const [seen, setSeen] = useState(threadId);
  const [fresh, setFresh] = useState(0);
  if (seen !== threadId) {
    setSeen(threadId);
    // Leaving a conversation started here for `/chat` starts another one.
    if (threadId === null) setFresh((n) => n + 1);
  }
  return { threadId, key: pageThreadId ?? `new-${fresh}` };
}

/** Gives a conversation started on `/chat` its own address, without leaving the page. */
export function takeAddress(threadId: string): void {
  const path = `/chat/${encodeURIComponent(threadId)}`;
  if (window.location.pathname !== path) window.history.replaceState(null, "", path);
}
