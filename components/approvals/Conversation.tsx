"use client";

import { useQuery } from "@tanstack/react-query";
import { EyeOffIcon, MessagesSquareIcon } from "lucide-react";
import { useCallback } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Skeleton } from "@/components/ui/Skeleton";
import type { InteractionView } from "@/components/trpc/types";

/** How many of the thread's latest messages show around a request. */
const RECENT = 6;

/**
 * The conversation a request came from, its latest messages, read under the one privacy rule: the
 * requester (the thread's owner) and the tenant's admins may read it (an admin's read is audited);
 * an approver who is neither sees the request only — its message and arguments, which the request
 * itself carries — and is told so.
 */
export function Conversation({
  interaction,
  viewerId,
  viewerIsAdmin,
}: {
  interaction: InteractionView;
  viewerId: string;
  viewerIsAdmin: boolean;
}) {
  const trpc = useTRPC();
  const mayRead = interaction.requester.id === viewerId || viewerIsAdmin;
  // The latest messages are nearest the request: a long conversation opens scrolled to its end.
  const scrolledToLatest = useCallback((list: HTMLOListElement | null) => {
    if (list) list.scrollTop = list.scrollHeight;
  }, []);
  const thread = useQuery(trpc.threads.get.queryOptions({ threadId: interaction.threadId }, { enabled: mayRead, retry: false }));
  const heading = (
    <h3 className="flex items-center gap-1.5 text-xs font-medium text-muted-foreground">
      <MessagesSquareIcon className="size-3.5" aria-hidden="true" />
      Conversation
    </h3>
  );
  if (!mayRead || thread.isError)
    return (
      <section className="grid gap-1.5" data-testid="conversation-private" aria-label="Conversation">
        {heading}
        <p className="flex items-start gap-2 text-sm text-muted-foreground">
          <EyeOffIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          The conversation is private to {interaction.requester.name ?? "the requester"} and your organisation&apos;s admins. You see the
          request only.
        </p>
      </section>
    );
  if (thread.isPending)
    return (
      <section className="grid gap-1.5" aria-label="Conversation">
        {heading}
        <Skeleton className="h-16" />
      </section>
    );
  const recent = thread.data.messages.filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim()).slice(-RECENT);
  return (
    <section className="grid gap-1.5" data-testid="conversation" aria-label="Conversation">
      {heading}
      {recent.length === 0 ? (
        <p className="text-sm text-muted-foreground">No messages yet.</p>
      ) : (
        // Focusable: a long conversation scrolls inside its box, and the keyboard must reach it too.
        <ol
          ref={scrolledToLatest}
          className="grid max-h-64 gap-1.5 overflow-y-auto rounded-lg border bg-muted/40 p-2.5"
          tabIndex={0}
          aria-label="Recent messages"
        >
          {recent.map((m) => (
            <li key={m.id} className="grid gap-0.5 text-sm" data-role={m.role}>
              <span className="text-xs font-medium text-muted-foreground">
                {m.role === "user" ? (interaction.requester.name ?? "Requester") : "Agent"}
              </span>
              <p className="line-clamp-4 whitespace-pre-wrap [overflow-wrap:anywhere]">{m.content}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
