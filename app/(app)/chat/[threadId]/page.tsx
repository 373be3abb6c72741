import { TRPCError } from "@trpc/server";
import { LockIcon } from "lucide-react";
import { notFound } from "next/navigation";
import { PageMessage } from "@/components/PageMessage";
import { ChatApp } from "@/components/chat/ChatApp";
import { serverApi } from "@/server/api/server-caller";
import { requireIdentity } from "@/server/auth/session";
import { settings } from "@/server/config";

export const dynamic = "force-dynamic";

export default async function ThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  const identity = await requireIdentity(`/chat/${encodeURIComponent(threadId)}`);
  const loaded = await loadThread(threadId);
  if (loaded === "forbidden") {
    return (
      <PageMessage icon={LockIcon} title="Not your conversation">
        This conversation belongs to another user of your organisation.
      </PageMessage>
    );
  }
  const { thread, messages } = loaded;
  return (
    <ChatApp
      threadId={thread.id}
      viewerId={identity.userId}
      maxMessageChars={settings().maxMessageChars}
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
