/** The stored messages of a thread as the run loop reads them. */
import { unansweredWaits } from "@/server/db/queries/interactions";
import { kindRules } from "@/server/domain";
import type { MessageRow } from "@/server/db/queries/threads";
import type { Database } from "@/server/db";
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

/** What a new run finds of the thread's calls without a result. */
export interface UnansweredCalls {
  /** Calls whose request expired or was lost before anyone answered: they will never have a result. */
  closed: ReadonlySet<string>;
  /** Whether one still waits on a request that holds the thread (a run that raced past the check). */
  waiting: boolean;
}

/**
 * The thread's calls without a result, by what became of their requests. A new run's planner does
 * not see the closed ones, so a run started again after such a request (Retry) asks again what the
 * user asked. Costs a query only when some call of the thread has no result.
 */
export async function unansweredCallsOf(
  db: Database,
  rows: readonly Pick<MessageRow, "role" | "toolCalls" | "toolCallId" | "runId">[],
): Promise<UnansweredCalls> {
  const answered = new Set(rows.flatMap((m) => (m.role === "tool" && m.toolCallId ? [m.toolCallId] : [])));
  const runs = new Set<string>();
  const calls: string[] = [];
  for (const m of rows) {
    for (const call of m.toolCalls ?? []) {
      if (answered.has(call.id)) continue;
      calls.push(call.id);
      if (m.runId) runs.add(m.runId);
    }
  }
  if (calls.length === 0) return { closed: new Set(), waiting: false };
  const waits = await unansweredWaits(db, [...runs], calls);
  return {
    closed: new Set(waits.flatMap((w) => (w.status === "pending" ? [] : [w.toolCallId]))),
    waiting: waits.some((w) => w.status === "pending" && kindRules(w.kind).holdsThread),
  };
}
