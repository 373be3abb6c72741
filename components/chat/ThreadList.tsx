"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CheckIcon, MessageSquarePlusIcon, MessagesSquareIcon, PencilIcon, SearchIcon, Trash2Icon, XIcon } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { RouterOutputs } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Input } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import { useToast } from "@/components/ui/Toaster";

type ThreadItem = RouterOutputs["threads"]["list"][number];

const when = (ms: number) => {
  const date = new Date(ms);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString(undefined, { timeStyle: "short" }) : date.toLocaleDateString(undefined, { dateStyle: "medium" });
};

const GROUPS = ["Today", "Yesterday", "Previous 7 days", "Older"] as const;
type Group = (typeof GROUPS)[number];

/** Which day group a time falls in, by the viewer's calendar days. */
function groupOf(ms: number, now = new Date()): Group {
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = 24 * 60 * 60 * 1000;
  if (ms >= startOfToday) return "Today";
  if (ms >= startOfToday - day) return "Yesterday";
  if (ms >= startOfToday - 7 * day) return "Previous 7 days";
  return "Older";
}

/** Top-level threads grouped by day, each with the helper threads its runs started folded under it. */
function arrange(threads: readonly ThreadItem[]) {
  const ids = new Set(threads.map((t) => t.id));
  const helpers = new Map<string, ThreadItem[]>();
  for (const t of threads)
    if (t.parentThreadId && ids.has(t.parentThreadId)) helpers.set(t.parentThreadId, [...(helpers.get(t.parentThreadId) ?? []), t]);
  const top = threads.filter((t) => !(t.parentThreadId && ids.has(t.parentThreadId)));
  return GROUPS.map((group) => ({
    group,
    threads: top
      .filter((t) => groupOf(new Date(t.updatedAt).getTime()) === group)
      .map((t) => ({ thread: t, helpers: helpers.get(t.id) ?? [] })),
  })).filter((g) => g.threads.length > 0);
}

/**
 * The viewer's conversations, newest first and grouped by day, searchable, each renameable and
 * deletable; a helper's conversation is folded under the one that started it. It lives in the
 * sidebar on wide screens and in a drawer on phones; `onNavigate` lets the drawer close.
 */
export function ThreadList({ activeId, onNavigate }: { activeId: string | null; onNavigate?: () => void }) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), 250);
    return () => clearTimeout(timer);
  }, [query]);
  const threads = useQuery({ ...trpc.threads.list.queryOptions(search ? { search } : undefined), placeholderData: (previous) => previous });
  const groups = useMemo(() => arrange(threads.data ?? []), [threads.data]);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="grid gap-2 p-3">
        <Button asChild variant="secondary" className="w-full justify-start no-underline">
          <Link href="/chat" data-testid="new-thread" onClick={onNavigate}>
            <MessageSquarePlusIcon aria-hidden="true" />
            New conversation
          </Link>
        </Button>
        <div className="relative">
          <SearchIcon
            className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden="true"
          />
          <Input
            type="search"
            aria-label="Search conversations"
            placeholder="Search conversations"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            maxLength={200}
            className="pl-8"
          />
        </div>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-3 pb-3">
        {threads.isPending ? (
          <div className="grid gap-2 px-2" role="status" aria-busy="true" aria-label="Loading conversations">
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
          search ? (
            <EmptyState icon={SearchIcon} title="No matches">
              No conversation mentions “{search}”.
            </EmptyState>
          ) : (
            <EmptyState icon={MessagesSquareIcon} title="No conversations yet">
              Say hello to start one.
            </EmptyState>
          )
        ) : (
          <div className="grid gap-3" data-testid="thread-list">
            {groups.map(({ group, threads: items }) => (
              <section key={group} aria-label={group}>
                <h2 className="px-2 pt-1 pb-1.5 text-xs font-medium tracking-wide text-muted-foreground uppercase">{group}</h2>
                <ul className="grid gap-0.5">
                  {items.map(({ thread, helpers }) => (
                    <li key={thread.id}>
                      <ThreadRow thread={thread} activeId={activeId} onNavigate={onNavigate} />
                      {helpers.length > 0 ? (
                        <details className="ml-3 border-l pl-2" open={helpers.some((h) => h.id === activeId) || undefined}>
                          <summary className="cursor-pointer rounded px-2 py-1 text-xs text-muted-foreground hover:text-foreground">
                            {helpers.length === 1 ? "1 helper conversation" : `${helpers.length} helper conversations`}
                          </summary>
                          <ul className="grid gap-0.5">
                            {helpers.map((h) => (
                              <li key={h.id}>
                                <ThreadRow thread={h} activeId={activeId} onNavigate={onNavigate} />
                              </li>
                            ))}
                          </ul>
                        </details>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}

/** One conversation: a link to it, and (on hover, focus, or when open) rename and delete. */
function ThreadRow({ thread, activeId, onNavigate }: { thread: ThreadItem; activeId: string | null; onNavigate?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [title, setTitle] = useState(thread.title);
  const titleInput = useRef<HTMLInputElement>(null);
  const deleteConfirm = useRef<HTMLButtonElement>(null);
  const inputId = useId();
  const titleId = useId();
  const active = thread.id === activeId;
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.threads.list.queryKey() });

  const rename = useMutation(
    trpc.threads.rename.mutationOptions({
      onSuccess: async () => {
        setMode("view");
        await refresh();
      },
      onError: (error) => toast({ tone: "error", title: "Could not rename the conversation", detail: error.message }),
    }),
  );
  const remove = useMutation(
    trpc.threads.delete.mutationOptions({
      onSuccess: async () => {
        toast({ tone: "success", title: "Conversation deleted" });
        if (active) router.push("/chat");
        await refresh();
      },
      onError: (error) => {
        setMode("view");
        toast({ tone: "error", title: "Could not delete the conversation", detail: error.message });
      },
    }),
  );

  useEffect(() => {
    if (mode === "rename") titleInput.current?.select();
    if (mode === "delete") deleteConfirm.current?.focus();
  }, [mode]);

  if (mode === "rename") {
    const submit = (event: FormEvent) => {
      event.preventDefault();
      const next = title.trim();
      if (!next || next === thread.title) return setMode("view");
      rename.mutate({ threadId: thread.id, title: next });
    };
    return (
      <form className="flex items-center gap-1 rounded-lg bg-accent px-1.5 py-1" onSubmit={submit} data-testid="rename-form">
        <label htmlFor={inputId} className="sr-only">
          Conversation title
        </label>
        <Input
          id={inputId}
          ref={titleInput}
          value={title}
          maxLength={200}
          onChange={(e) => setTitle(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              setTitle(thread.title);
              setMode("view");
            }
          }}
          className="h-8"
          disabled={rename.isPending}
        />
        <Button type="submit" variant="ghost" size="icon-sm" aria-label="Save title" disabled={rename.isPending}>
          <CheckIcon aria-hidden="true" />
        </Button>
        <Button
          variant="ghost"
          size="icon-sm"
          aria-label="Cancel renaming"
          onClick={() => {
            setTitle(thread.title);
            setMode("view");
          }}
        >
          <XIcon aria-hidden="true" />
        </Button>
      </form>
    );
  }

  if (mode === "delete") {
    return (
      <div className="grid gap-2 rounded-lg border border-danger-border bg-card p-2.5 text-sm">
        <p>
          Delete <strong className="font-medium [overflow-wrap:anywhere]">{thread.title}</strong> and its messages?
        </p>
        <div className="flex gap-2">
          <Button
            ref={deleteConfirm}
            variant="danger"
            size="sm"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ threadId: thread.id })}
          >
            {remove.isPending ? "Deleting…" : "Yes, delete"}
          </Button>
          <Button variant="ghost" size="sm" onClick={() => setMode("view")}>
            Keep it
          </Button>
        </div>
      </div>
    );
  }

  return (
    <div
      data-testid="thread-row"
      className={cn("group relative flex items-center rounded-lg transition-colors hover:bg-accent", active && "bg-accent")}
    >
      <Link
        href={`/chat/${encodeURIComponent(thread.id)}`}
        onClick={onNavigate}
        className={cn("thread grid min-w-0 flex-1 gap-0.5 rounded-lg px-3 py-2 pr-2 no-underline", active && "active")}
        aria-current={active ? "page" : undefined}
      >
        <span id={titleId} className={cn("thread-title truncate text-sm", active && "font-medium")}>
          {thread.title}
        </span>
        <time className="text-xs text-muted-foreground" dateTime={new Date(thread.updatedAt).toISOString()}>
          {when(new Date(thread.updatedAt).getTime())}
        </time>
      </Link>
      <div
        className={cn(
          "flex shrink-0 gap-0.5 pr-1 opacity-0 transition-opacity group-hover:opacity-100 focus-within:opacity-100 [@media(hover:none)]:opacity-100",
          active && "opacity-100",
        )}
      >
        <Button variant="ghost" size="icon-sm" aria-label="Rename" aria-describedby={titleId} onClick={() => setMode("rename")}>
          <PencilIcon aria-hidden="true" />
        </Button>
        <Button variant="ghost" size="icon-sm" aria-label="Delete" aria-describedby={titleId} onClick={() => setMode("delete")}>
          <Trash2Icon aria-hidden="true" />
        </Button>
      </div>
    </div>
  );
}

/** The open conversation's row in the list (no extra request): its title and agent. */
export function useThreadInfo(activeId: string | null): { title: string; agentId: string | null; loaded: boolean } {
  const trpc = useTRPC();
  const threads = useQuery(trpc.threads.list.queryOptions());
  if (!activeId) return { title: "New conversation", agentId: null, loaded: true };
  const row = threads.data?.find((t) => t.id === activeId);
  return { title: row?.title ?? "Conversation", agentId: row?.agentId ?? null, loaded: !threads.isPending };
}

/** The title of the open conversation, from the same list (no extra request). */
export function useThreadTitle(activeId: string | null): string {
  return useThreadInfo(activeId).title;
}
