import { ChatApp } from "@/components/chat/ChatApp";

export const dynamic = "force-dynamic";

export default function ChatPage() {
  return <ChatApp threadId={null} initialMessages={[]} />;
}
