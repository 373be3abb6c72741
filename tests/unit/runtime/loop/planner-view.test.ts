/**
 * A turn that ended in a request nobody will answer (expired, lost) is not what the planner plans
 * from: a run started again after it (Retry) sees the user's words last and asks again. The model
 * is never sent a call without its result.
 */
import { describe, expect, it } from "vitest";
import { toModelMessages } from "@/server/agents/assistant/planner";
import { conciergePlanner } from "@/server/agents/concierge/planner";
import type { RunState, TranscriptMessage } from "@/server/runtime";
import { plannerView } from "@/server/runtime/loop/planner-view";

const ask: TranscriptMessage = { id: "u1", role: "user", content: "send an email to ana@example.com saying hi" };
const deadCall: TranscriptMessage = {
  id: "a1",
  role: "assistant",
  content: "",
  toolCalls: [{ id: "call-dead", name: "send_email", args: { to: "ana@example.com", body: "hi" } }],
};

const stateOf = (transcript: TranscriptMessage[]): RunState => ({
  runId: "r2",
  threadId: "t1",
  agentId: "concierge",
  tenantId: "tenant-acme",
  ownerId: "user-alice",
  step: 0,
  transcript,
  sharedState: {},
});

describe("what the planner sees of calls whose requests closed unanswered", () => {
  it("leaves out the dead turn — its calls and the words said just before them — and nothing else", () => {
    const said: TranscriptMessage = { id: "a0", role: "assistant", content: "I will send it once you approve." };
    const earlier: TranscriptMessage[] = [
      { id: "u0", role: "user", content: "hello" },
      { id: "a00", role: "assistant", content: "Hi!" },
    ];
    const state = stateOf([...earlier, ask, said, deadCall]);
    expect(plannerView(state, new Set(["call-dead"])).transcript).toEqual([...earlier, ask]);
    // The run's own state is untouched: the thread and its snapshots keep the whole record.
    expect(state.transcript).toHaveLength(5);
    expect(plannerView(state, new Set())).toBe(state);
    expect(plannerView(state, undefined)).toBe(state);
  });

  it("keeps a message's other calls, and words said with the dead call in the same message go with it", () => {
    const mixed: TranscriptMessage = {
      ...deadCall,
      content: "Sending now.",
      toolCalls: [...deadCall.toolCalls!, { id: "call-live", name: "calendar_today", args: {} }],
    };
    expect(plannerView(stateOf([ask, mixed]), new Set(["call-dead"])).transcript).toEqual([
      ask,
      { ...mixed, toolCalls: [{ id: "call-live", name: "calendar_today", args: {} }] },
    ]);
    expect(plannerView(stateOf([ask, { ...deadCall, content: "Sending now." }]), new Set(["call-dead"])).transcript).toEqual([ask]);
  });

  it("lets the concierge ask again: the same call, newly planned, instead of nothing", () => {
    const planner = conciergePlanner();
    const dead = stateOf([ask, deadCall]);
    expect(planner.next(dead)).toEqual({ type: "finish" });
    expect(planner.next(plannerView(dead, new Set(["call-dead"])))).toMatchObject({
      type: "call_tools",
      calls: [{ name: "send_email", args: { to: "ana@example.com", body: "hi" } }],
    });
  });
});

describe("what the model is sent", () => {
  it("never a call without its result (providers refuse one); the words said with it stay", () => {
    const messages = toModelMessages([ask, { ...deadCall, content: "Sending now." }, { id: "u2", role: "user", content: "never mind" }]);
    expect(messages).toEqual([
      { role: "user", content: ask.content },
      { role: "assistant", content: "Sending now." },
      { role: "user", content: "never mind" },
    ]);
  });

  it("a call with its result, as before", () => {
    const result: TranscriptMessage = { id: "t1", role: "tool", toolCallId: "call-dead", content: '{"sent":true}' };
    const messages = toModelMessages([ask, deadCall, result]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });
});
