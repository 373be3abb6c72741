export interface ChatMessage {
  id: string;
  role: "user" | "assistant" | "system" | "developer" | "tool";
  content: string;
}
