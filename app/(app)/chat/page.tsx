import { ChatApp } from "@/components/chat/ChatApp";
import { requireIdentity } from "@/server/auth/session";
import { settings } from "@/server/config";

export const dynamic = "force-dynamic";

export default async function ChatPage() {
  const identity = await requireIdentity("/chat");
  return <ChatApp threadId={null} viewerId={identity.userId} initialMessages={[]} maxMessageChars={settings().maxMessageChars} />;
}
