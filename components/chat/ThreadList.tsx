"use client";

import { useQuery } from "@tanstack/react-query";
import { MessageSquarePlusIcon, MessagesSquareIcon } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Skeleton } from "@/components/ui/Skeleton";

const when = (ms: number) => {
  const date = new Date(ms);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString(undefined, { timeStyle: "short" }) : date.toLocaleDateString(undefined, { dateStyle: "medium" });
};

/**
 * The viewer's conversations, newest first, and a way to start another. It lives in the sidebar on
 * wide screens and in a drawer on phones; `onNavigate` lets the drawer close when a link is followed.
 */
export function ThreadList({ activeId, onNavigate }: { activeId: string | null; onNavigate?: () => void }) {
  const trpc = useTRPC();
  const threads = useQuery(trpc.threads.list.queryOptions());
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="p-3">
        <Button asChild variant="secondary" className="w-full justify-start no-underline">
          <Link href="/chat" data-testid="new-thread" onClick={onNavigate}>
            <MessageSquarePlusIcon aria-hidden="true" />
            New conversation
          </Link>
        </Button>
      </div>
      <h2 className="px-5 pt-1 pb-2 text-xs font-medium tracking-wide text-muted-foreground uppercase">Recent</h2>
      <div className="min-h-0 flex-1 overflow-y-auto px-3 pb-3">
        {threads.isPending ? (
          <div className="grid gap-2 px-2" aria-busy="true" aria-label="Loading conversations">
            {[0, 1, 2, 3].map((i) => (
              <Skeleton key={i} className="h-10" />
            ))}
          </div>
        ) : threads.isError ? (
          <ErrorAlert>
            Could not load conversations: {threads.error.message}{" "}
            <Button variant="link" onClick={() => void threads.refetch()}>
              Retry
            </Button>
          </ErrorAlert>
        ) : threads.data.length === 0 ? (
          <EmptyState icon={MessagesSquareIcon} title="No conversations yet">
            Say hello to start one.
          </EmptyState>
        ) : (
          <ul className="grid gap-0.5" data-testid="thread-list">
            {threads.data.map((t) => (
              <li key={t.id}>
                <Link
                  href={`/chat/${encodeURIComponent(t.id)}`}
                  onClick={onNavigate}
                  className={cn(
                    "thread grid gap-0.5 rounded-lg px-3 py-2 no-underline transition-colors hover:bg-accent",
                    t.id === activeId && "active bg-accent",
                  )}
                  aria-current={t.id === activeId ? "page" : undefined}
                >
                  <span className={cn("thread-title truncate text-sm", t.id === activeId && "font-medium")}>{t.title}</span>
                  <time className="text-xs text-muted-foreground" dateTime={new Date(t.updatedAt).toISOString()}>
                    {when(new Date(t.updatedAt).getTime())}
                  </time>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

/** The title of the open conversation, from the same list (no extra request). */
export function useThreadTitle(activeId: string | null): string {
  const trpc = useTRPC();
  const threads = useQuery(trpc.threads.list.queryOptions());
  if (!activeId) return "New conversation";
  return threads.data?.find((t) => t.id === activeId)?.title ?? "Conversation";
}
