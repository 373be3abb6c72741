/** The stored messages of a thread as the run loop reads them. */
import type { MessageRow } from "@/server/db/queries/threads";
import type { TranscriptMessage } from "../agent";

export function toTranscript(
  rows: readonly Pick<MessageRow, "id" | "role" | "content" | "toolCalls" | "toolCallId">[],
): TranscriptMessage[] {
  return rows.map(({ id, role, content, toolCalls, toolCallId }) => ({
    id,
    role,
    content,
    ...(toolCalls ? { toolCalls } : {}),
    ...(toolCallId ? { toolCallId } : {}),
  }));
}
