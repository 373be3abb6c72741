"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";

export function ThreadList({ activeId }: { activeId: string | null }) {
  const trpc = useTRPC();
  const threads = useQuery(trpc.threads.list.queryOptions());
  return (
    <aside className="sidebar" aria-label="Conversations">
      <Link href="/chat" className="button primary block" data-testid="new-thread">
        + New conversation
      </Link>
      {threads.isPending ? (
        <ul className="thread-list" aria-busy="true">
          {[0, 1, 2].map((i) => (
            <li key={i} className="skeleton" />
          ))}
        </ul>
      ) : threads.isError ? (
        <p role="alert" className="error small">
          Could not load conversations: {threads.error.message}{" "}
          <button className="link" onClick={() => void threads.refetch()}>
            Retry
          </button>
        </p>
      ) : threads.data.length === 0 ? (
        <p className="muted small empty">No conversations yet. Say hello to start one.</p>
      ) : (
        <ul className="thread-list" data-testid="thread-list">
          {threads.data.map((t) => (
            <li key={t.id}>
              <Link
                href={`/chat/${encodeURIComponent(t.id)}`}
                className={t.id === activeId ? "thread active" : "thread"}
                aria-current={t.id === activeId ? "page" : undefined}
              >
                <span className="thread-title">{t.title}</span>
                <time className="muted small" dateTime={new Date(t.updatedAt).toISOString()}>
                  {new Date(t.updatedAt).toLocaleString()}
                </time>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
