/**
 * An agent whose model streams `WORDS` words, one per turn of the event loop, as fast as it can:
 * with `textFrameMs: 0` each word is its own delta, so as many writes are in flight as can be for
 * readers to meet.
 */
import { expect } from "vitest";
import type { Database } from "@/server/db";
import { listRunEvents } from "@/server/db/queries/runs";
import type { LoggedEvent, ModelPart, Planner, Runtime } from "@/server/runtime";
import { agentOf, ALICE, started } from "./runtime";

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

/** Alice asks the storyteller for a story on `threadId` (its id names the run and message too). */
export async function tellStory(runtime: Runtime, threadId: string) {
  return started(
    await runtime.startRun(ALICE, {
      agentId: "storyteller",
      threadId,
      transportRunId: `${threadId}-run`,
      messages: [{ id: `${threadId}-m`, role: "user", content: "a story" }],
    }),
  );
}

/** Alice follows the run through `watchRun` from `afterSeq` to its end. */
export async function follow(runtime: Runtime, runId: string, afterSeq: number): Promise<LoggedEvent[]> {
  const seen: LoggedEvent[] = [];
  for await (const logged of await runtime.watchRun(ALICE, runId, afterSeq)) seen.push(logged);
  return seen;
}

export const textOf = (events: readonly LoggedEvent[]) => events.map((l) => (l.event.type === "text.delta" ? l.event.delta : "")).join("");

/**
 * Reads a run's own stream to its end while readers join it: every `every` deltas one more,
 * following from the number `startAt(own, nth)` gives. Then checks what each saw: every number
 * after its start once, in order, with the run's own events, and the stored log equals the stream.
 */
export async function expectReadersJoiningMidStream(options: {
  db: Database;
  run: { runId: string; events: AsyncIterable<LoggedEvent[]> };
  every: number;
  startAt(own: readonly LoggedEvent[], nth: number): number;
  follow(from: number): Promise<LoggedEvent[]>;
}): Promise<void> {
  const { db, run, every, startAt } = options;
  const readers: Promise<{ from: number; seen: LoggedEvent[] }>[] = [];
  const own: LoggedEvent[] = [];
  for await (const batch of run.events) {
    own.push(...batch);
    const deltas = own.filter((l) => l.event.type === "text.delta").length;
    if (deltas > 0 && deltas % every === 0 && readers.length < deltas / every) {
      const from = startAt(own, readers.length);
      readers.push(options.follow(from).then((seen) => ({ from, seen })));
    }
  }
  expect(readers.length).toBeGreaterThan(5);
  expect(textOf(own)).toBe(STORY);

  const stored = await listRunEvents(db, run.runId, 0, 10_000);
  expect(stored.map((r) => [r.seq, r.data])).toEqual(own.map((l) => [l.seq, l.event]));
  for (const { from, seen } of await Promise.all(readers)) {
    expect(seen.map((l) => l.seq)).toEqual(Array.from({ length: own.at(-1)!.seq - from }, (_, i) => from + 1 + i));
    expect(seen.map((l) => l.event)).toEqual(own.filter((l) => l.seq > from).map((l) => l.event));
  }
}
