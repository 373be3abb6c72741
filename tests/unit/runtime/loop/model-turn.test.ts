import { describe, expect, it } from "vitest";
import { streamModelTurn, TEXT_FRAME_MS } from "@/server/runtime/loop/model-turn";
import type { ModelPart, RunEvent } from "@/server/runtime";
import type { RunState } from "@/server/runtime/agent";

const state: RunState = {
  runId: "r",
  threadId: "t",
  agentId: "a",
  tenantId: "tenant",
  ownerId: "owner",
  step: 0,
  transcript: [],
  sharedState: {},
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records what the turn streams (published at once) and appends (stored first), with when. */
function recorder() {
  const streamed: { at: number; events: RunEvent[] }[] = [];
  const appended: RunEvent[][] = [];
  const t0 = performance.now();
  return {
    streamed,
    appended,
    deps: {
      append: async (events: readonly RunEvent[]) => void appended.push([...events]),
      stream: (events: readonly RunEvent[]) => void streamed.push({ at: performance.now() - t0, events: [...events] }),
      newId: () => "m1",
    },
  };
}

describe("a model's streamed turn", () => {
  it("sends its first words at once, then what came within a frame as one delta", async () => {
    const { deps, streamed, appended } = recorder();
    async function* model(): AsyncGenerator<ModelPart> {
      yield { type: "text", delta: "Hello" };
      await sleep(TEXT_FRAME_MS * 2);
      for (const word of [" there", ",", " how", " are", " you"]) {
        yield { type: "text", delta: word };
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const turn = await streamModelTurn(state, model(), deps, new AbortController().signal);
    expect(streamed[0]?.at).toBeLessThan(TEXT_FRAME_MS);
    expect(streamed[0]?.events).toEqual([
      { type: "text.started", messageId: "m1" },
      { type: "text.delta", messageId: "m1", delta: "Hello" },
    ]);
    // Five words a turn of the event loop apart: fewer deltas than words, the same text.
    const deltas = streamed.flatMap((s) => s.events).filter((e) => e.type === "text.delta");
    expect(deltas.length).toBeLessThan(6);
    expect(deltas.map((e) => (e.type === "text.delta" ? e.delta : "")).join("")).toBe("Hello there, how are you");
    // The end is stored (after the text), with the message it closes.
    expect(appended).toEqual([[{ type: "text.ended", messageId: "m1" }]]);
    expect(turn.state.transcript.at(-1)).toMatchObject({ role: "assistant", content: "Hello there, how are you" });
  });

  it("tells why nothing comes yet, stored before it is published, after the text before it", async () => {
    const { deps, streamed, appended } = recorder();
    async function* model(): AsyncGenerator<ModelPart> {
      yield { type: "retrying", attempt: 2, maxAttempts: 3, delayMs: 10, reason: "HTTP 503" };
      yield { type: "text", delta: "ok" };
    }
    await streamModelTurn(state, model(), deps, new AbortController().signal);
    expect(appended[0]).toEqual([{ type: "model.retrying", attempt: 2, maxAttempts: 3, delayMs: 10, reason: "HTTP 503" }]);
    expect(streamed.flatMap((s) => s.events).map((e) => e.type)).toEqual(["text.started", "text.delta"]);
  });

  it("never sends what the database cannot store, and keeps a surrogate pair split across deltas whole", async () => {
    const { deps, streamed } = recorder();
    const smile = "\u{1F600}";
    async function* model(): AsyncGenerator<ModelPart> {
      yield { type: "text", delta: "a\u0000b" };
      yield { type: "text", delta: `c${smile[0]}` };
      yield { type: "text", delta: `${smile[1]}d\uDC00` };
    }
    const turn = await streamModelTurn(state, model(), deps, new AbortController().signal);
    const text = streamed
      .flatMap((s) => s.events)
      .map((e) => (e.type === "text.delta" ? e.delta : ""))
      .join("");
    expect(text).toBe(`abc${smile}d\uFFFD`);
    expect(turn.state.transcript.at(-1)?.content).toBe(text);
  });
});
