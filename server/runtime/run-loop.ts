/**
 * The run loop: asks the planner for the next step, carries it out, repeats until the planner
 * finishes. It works only on the serializable `RunState` and reports through the journal.
 */
import { HarborError } from "./errors";
import type { RunEvent } from "./events";
import type { Planner } from "./planner";
import type { RunState, TranscriptMessage } from "./state";

export interface RunLoopDeps {
  /**
   * Records events (and the transcript message they say, if any) in the run's log, then
   * publishes them, spaced by `paceMs`.
   */
  append(events: readonly RunEvent[], options?: { paceMs?: number; message?: TranscriptMessage }): Promise<unknown>;
  newId(): string;
  /** Pause between streamed chunks of text. */
  streamChunkMs: number;
  /** Upper bound on planner steps, so a planner bug cannot spin forever. */
  maxSteps: number;
}

/** Splits text into word-sized chunks that concatenate back to the exact text. */
export function chunkText(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text.length > 0 ? [text] : []);
}

/** Runs the planner to completion; returns the final state. Throws HarborError on failure. */
export async function runLoop(initial: RunState, planner: Planner, deps: RunLoopDeps): Promise<RunState> {
  let state = initial;
  for (;;) {
    if (state.step >= deps.maxSteps) {
      throw new HarborError("STEP_LIMIT", `The run stopped after ${deps.maxSteps} planner steps.`);
    }
    const decision = await planner.next(state);
    state = { ...state, step: state.step + 1 };
    switch (decision.type) {
      case "finish":
        return state;
      case "say": {
        const message: TranscriptMessage = { id: deps.newId(), role: "assistant", content: decision.text };
        const deltas = chunkText(decision.text).map(
          (delta): RunEvent => ({ type: "text.delta", messageId: message.id, delta }),
        );
        await deps.append(
          [{ type: "text.started", messageId: message.id }, ...deltas, { type: "text.ended", messageId: message.id }],
          { paceMs: deps.streamChunkMs, message },
        );
        state = { ...state, transcript: [...state.transcript, message] };
        break;
      }
    }
  }
}
