import { ChatApp } from "@/components/chat/ChatApp";
import { requireIdentity } from "@/server/auth/session";

export const dynamic = "force-dynamic";

export default async function ChatPage() {
  const identity = await requireIdentity("/chat");
  return <ChatApp threadId={null} viewerId={identity.userId} initialMessages={[]} />;
}
