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

const planner = conciergePlanner({ stepMs: 0 });

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
    expect(await planner.next(state([user]))).toEqual({ type: "say", text: replyTo("hey") });
    const answered = [user, { id: "2", role: "assistant" as const, content: "…" }];
    expect(await planner.next(state(answered))).toEqual({ type: "finish" });
    expect(await planner.next(state([]))).toEqual({ type: "finish" });
  });

  const ask = (content: string) => planner.next(state([{ id: "1", role: "user", content }]));

  it("maps each capability phrase to its tool", async () => {
    expect(await ask("send an email to bob@example.com saying hi")).toEqual({
      type: "call_tools",
      calls: [{ name: "send_email", args: { to: "bob@example.com", body: "hi" } }],
    });
    expect(await ask("transfer $1,250.50 to ACME-1")).toEqual({
      type: "call_tools",
      calls: [{ name: "transfer_funds", args: { amount: 1250.5, currency: "USD", to: "ACME-1" } }],
    });
    expect(await ask("What's my time zone?")).toMatchObject({ calls: [{ name: "get_browser_timezone" }] });
    expect(await ask("please connect my API key")).toMatchObject({ calls: [{ name: "connect_api_key" }] });
    expect(await ask("research coral reefs.")).toMatchObject({ calls: [{ name: "deep_research", args: { topic: "coral reefs" } }] });
  });

  it("plans several approvals from one message, but keeps forms and background work to a message of their own", async () => {
    expect(await ask("send an email to a@example.com saying 1\ntransfer 5 EUR to X")).toMatchObject({
      calls: [{ name: "send_email" }, { name: "transfer_funds" }],
    });
    const mixed = await ask("research owls\nsend an email to a@example.com saying 1");
    expect(mixed).toMatchObject({ type: "say", text: expect.stringMatching(/message of its own/) });
  });
});
