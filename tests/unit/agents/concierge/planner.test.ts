import { describe, expect, it } from "vitest";
import { CAPABILITIES, conciergePlanner, replyTo } from "@/server/agents/concierge/planner";
import type { RunState, TranscriptMessage } from "@/server/runtime";

const state = (transcript: TranscriptMessage[]): RunState => ({
  runId: "r",
  threadId: "t",
  agentId: "concierge",
  tenantId: "x",
  ownerId: "u",
  step: 0,
  transcript,
  sharedState: {},
});

describe("the concierge planner", () => {
  it("greets back and lists what it can do", () => {
    expect(replyTo("Hello there")).toMatch(/^Hello! I'm the Harbor concierge\./);
    for (const capability of CAPABILITIES) expect(replyTo("hi")).toContain(`- ${capability}`);
  });

  it("answers anything else with the capability list", () => {
    const reply = replyTo("order me a pizza");
    expect(reply).toMatch(/^I can't help with that yet\./);
    expect(reply).toContain("- count slowly to <n>");
  });

  it("answers the user's latest message once, then finishes", async () => {
    const user: TranscriptMessage = { id: "1", role: "user", content: "hey" };
    expect(await conciergePlanner.next(state([user]))).toEqual({ type: "say", text: replyTo("hey") });
    const answered = [user, { id: "2", role: "assistant" as const, content: "…" }];
    expect(await conciergePlanner.next(state(answered))).toEqual({ type: "finish" });
    expect(await conciergePlanner.next(state([]))).toEqual({ type: "finish" });
  });
});
