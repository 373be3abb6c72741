/**
 * What the planner is shown of a run: its state, less the turns that ended in a request nobody will
 * ever answer (it expired, or was lost with its process). A run started again after such a request
 * (Retry in the chat) then plans from the user's words, as if the dead turn had not happened, and
 * asks again. The run's own record — its transcript, snapshots, the thread — keeps everything.
 */
import type { RunState, TranscriptMessage } from "../agent";

export function plannerView(state: RunState, closed: ReadonlySet<string> | undefined): RunState {
  if (!closed || closed.size === 0) return state;
  const kept: TranscriptMessage[] = [];
  for (const m of state.transcript) {
    if (!m.toolCalls?.some((c) => closed.has(c.id))) {
      kept.push(m);
      continue;
    }
    const toolCalls = m.toolCalls.filter((c) => !closed.has(c.id));
    if (toolCalls.length > 0) {
      kept.push({ ...m, toolCalls });
      continue;
    }
    // The words a model said just before those calls (a message of their own) belong to the dead turn too.
    const before = kept.at(-1);
    if (!m.content && before?.role === "assistant" && !before.toolCalls?.length) kept.pop();
  }
  return { ...state, transcript: kept };
}
