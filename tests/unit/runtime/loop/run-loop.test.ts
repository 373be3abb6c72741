import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@/server/agents/define";
import type { Planner, PlannerDecision, RunEvent, RunState, TranscriptMessage } from "@/server/runtime";
import { chunkText, runLoop, type RunLoopDeps } from "@/server/runtime/loop/run-loop";
import { HarborError } from "@/server/runtime/errors";
import { agentOf } from "../../../helpers/runtime";

function initialState(transcript: TranscriptMessage[]): RunState {
  return {
    runId: "run-1",
    threadId: "thread-1",
    agentId: "test",
    tenantId: "tenant-1",
    ownerId: "user-1",
    step: 0,
    transcript,
    sharedState: {},
  };
}

function recorder(overrides: Partial<RunLoopDeps> = {}) {
  const appended: RunEvent[][] = [];
  const saved: TranscriptMessage[] = [];
  let id = 0;
  const deps: RunLoopDeps = {
    append: async (events, options) => {
      appended.push([...events]);
      if (options?.message) saved.push(options.message);
    },
    stream: (events) => void appended.push([...events]),
    newId: () => `id-${++id}`,
    streamChunkMs: 0,
    maxSteps: 10,
    ...overrides,
  };
  return { deps, appended, saved };
}

const scripted = (...decisions: PlannerDecision[]): Planner => {
  let i = 0;
  return { next: () => decisions[i++] ?? { type: "finish" } };
};

describe("the run loop", () => {
  it("streams a say decision as start, word chunks and end, in one append that also records the message", async () => {
    const { deps, appended, saved } = recorder();
    const { state: final } = await runLoop(
      initialState([]),
      agentOf("test", scripted({ type: "say", text: "Hello there, friend." })),
      deps,
    );

    expect(appended).toHaveLength(1);
    expect(appended[0]).toEqual([
      { type: "text.started", messageId: "id-1" },
      { type: "text.delta", messageId: "id-1", delta: "Hello " },
      { type: "text.delta", messageId: "id-1", delta: "there, " },
      { type: "text.delta", messageId: "id-1", delta: "friend." },
      { type: "text.ended", messageId: "id-1" },
    ]);
    expect(saved).toEqual([{ id: "id-1", role: "assistant", content: "Hello there, friend." }]);
    expect(final.transcript.at(-1)).toEqual(saved[0]);
    expect(final.step).toBe(2);
  });

  it("passes the pacing to the journal so text streams visibly", async () => {
    const paces: (number | undefined)[] = [];
    const { deps } = recorder({ streamChunkMs: 15, append: async (_e, o) => void paces.push(o?.paceMs) });
    await runLoop(initialState([]), agentOf("test", scripted({ type: "say", text: "hi" })), deps);
    expect(paces).toEqual([15]);
  });

  it("lets the planner see what it said in earlier steps", async () => {
    const seen: number[] = [];
    const planner: Planner = {
      next: (state) => {
        seen.push(state.transcript.length);
        return state.transcript.length < 3 ? { type: "say", text: "more" } : { type: "finish" };
      },
    };
    const { deps } = recorder();
    await runLoop(initialState([{ id: "u", role: "user", content: "go" }]), agentOf("test", planner), deps);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("stops a planner that never finishes with STEP_LIMIT", async () => {
    const { deps } = recorder({ maxSteps: 3 });
    const forever: Planner = { next: () => ({ type: "say", text: "again" }) };
    await expect(runLoop(initialState([]), agentOf("test", forever), deps)).rejects.toSatisfy(
      (e) => e instanceof HarborError && e.code === "STEP_LIMIT",
    );
  });

  it("keeps the state serializable through every step", async () => {
    const { deps } = recorder();
    const { state: final } = await runLoop(
      initialState([]),
      agentOf("test", scripted({ type: "say", text: "a" }, { type: "say", text: "b" })),
      deps,
    );
    expect(JSON.parse(JSON.stringify(final))).toEqual(final);
  });
});

describe("a tool acting outside the database", () => {
  /** A tool that counts its executions and keeps the idempotency keys it was given. */
  function effect() {
    const keys: string[] = [];
    const tool = defineTool({
      name: "effect",
      description: "acts outside",
      input: z.object({}),
      output: z.object({ done: z.boolean() }),
      run: async (_args, ctx) => {
        keys.push(ctx.idempotencyKey);
        return { done: true };
      },
    });
    return { keys, tools: new Map([["effect", tool]]) };
  }
  const callsEffect = (id: string) => scripted({ type: "call_tools", calls: [{ id, name: "effect", args: {} }] });

  it("runs only past the run's fence: a fence that refuses stops the loop before the tool acts", async () => {
    const { keys, tools } = effect();
    const lost = new Error("reclaimed");
    const { deps, appended } = recorder({ fence: () => Promise.reject(lost) });
    await expect(runLoop(initialState([]), agentOf("test", callsEffect("call-1"), tools), deps)).rejects.toBe(lost);
    expect(keys).toEqual([]);
    expect(appended.flat().some((e) => e.type === "tool.result")).toBe(false);
  });

  it("hands the tool an idempotency key: the same for every execution of one call, another for another call, naming neither", async () => {
    const { keys, tools } = effect();
    for (const id of ["call-1", "call-1", "call-2"]) {
      const { deps } = recorder({ fence: () => Promise.resolve() });
      await runLoop(initialState([]), agentOf("test", callsEffect(id), tools), deps);
    }
    expect(keys[0]).toMatch(/^harbor-[\w-]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    for (const key of keys) expect(key).not.toMatch(/call-|tenant-1|thread-1/);
  });
});

describe("chunkText", () => {
  it.each(["Hello there", "  leading and trailing  ", "one", "line one\nline two\n- item", "x"])(
    "splits %j into chunks that join back to the exact text",
    (text) => {
      const chunks = chunkText(text);
      expect(chunks.join("")).toBe(text);
      expect(chunks.every((c) => c.length > 0)).toBe(true);
    },
  );

  it("gives no chunks for empty text", () => {
    expect(chunkText("")).toEqual([]);
  });
});
