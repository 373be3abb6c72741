import { TRPCError } from "@trpc/server";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ChatApp } from "@/components/chat/ChatApp";
import { serverApi } from "@/server/api/server-caller";
import { requireIdentity } from "@/server/auth/session";

export const dynamic = "force-dynamic";

export default async function ThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  const identity = await requireIdentity(`/chat/${encodeURIComponent(threadId)}`);
  const loaded = await loadThread(threadId);
  if (loaded === "forbidden") {
    return (
      <main className="centered">
        <div className="card narrow">
          <h1>Not your conversation</h1>
          <p className="muted">This conversation belongs to another user of your organisation.</p>
          <Link className="button" href="/chat">
            Back to your conversations
          </Link>
        </div>
      </main>
    );
  }
  const { thread, messages } = loaded;
  return (
    <ChatApp
      threadId={thread.id}
      viewerId={identity.userId}
      initialMessages={messages.map(({ id, role, content, toolCalls, toolCallId }) => ({
        id,
        role,
        content,
        ...(toolCalls ? { toolCalls } : {}),
        ...(toolCallId ? { toolCallId } : {}),
      }))}
    />
  );
}

/** The thread and its messages; "forbidden" when it is another user's. */
async function loadThread(threadId: string) {
  try {
    return await (await serverApi()).threads.get({ threadId });
  } catch (error) {
    // An id that cannot exist (too long, unstorable text) is simply not found.
    if (error instanceof TRPCError && (error.code === "NOT_FOUND" || error.code === "BAD_REQUEST")) notFound();
    if (error instanceof TRPCError && error.code === "FORBIDDEN") return "forbidden" as const;
    throw error;
  }
}
