/**
 * An agent whose model streams `WORDS` words, one per turn of the event loop, as fast as it can:
 * with `textFrameMs: 0` each word is its own delta, so as many writes are in flight as can be for
 * readers to meet.
 */
import type { LoggedEvent, ModelPart, Planner, Runtime } from "@/server/runtime";
import { agentOf, ALICE } from "./runtime";

export const WORDS = 300;
export const STORY = Array.from({ length: WORDS }, (_, i) => `w${i} `).join("");

async function* fastModel(): AsyncGenerator<ModelPart> {
  for (let i = 0; i < WORDS; i++) {
    yield { type: "text", delta: `w${i} ` };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const storyteller: Planner = {
  next: (state) => (state.transcript.some((m) => m.role === "assistant") ? { type: "finish" } : { type: "stream", parts: fastModel() }),
};

export const storytellerAgents = () => new Map([["storyteller", agentOf("storyteller", storyteller)]]);

/** Alice follows the run through `watchRun` from `afterSeq` to its end. */
export async function follow(runtime: Runtime, runId: string, afterSeq: number): Promise<LoggedEvent[]> {
  const seen: LoggedEvent[] = [];
  for await (const logged of await runtime.watchRun(ALICE, runId, afterSeq)) seen.push(logged);
  return seen;
}

export const textOf = (events: readonly LoggedEvent[]) => events.map((l) => (l.event.type === "text.delta" ? l.event.delta : "")).join("");
