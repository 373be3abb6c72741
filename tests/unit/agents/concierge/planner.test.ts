import { describe, expect, it } from "vitest";
import { suggestionsFor } from "@/components/chat/suggestions";
import { CAPABILITIES, conciergePlanner, plannedCalls, replyTo } from "@/server/agents/concierge/planner";
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

  it("answers what it can do with what it can do", () => {
    for (const ask of ["What can you do?", "what do you do", "How can you help me?", "help"]) {
      const reply = replyTo(ask);
      expect(reply).not.toMatch(/can't help/);
      expect(reply).toContain("Here is what I can do:");
      for (const capability of CAPABILITIES) expect(reply).toContain(`- ${capability}`);
    }
  });

  it("answers every suggestion chip the chat offers for it: a planned call, or what it can do", () => {
    const tools = [
      "send_email",
      "transfer_funds",
      "get_browser_timezone",
      "connect_api_key",
      "deep_research",
      "calendar_today",
      "ask_travel_agent",
    ];
    const chips = suggestionsFor({ tools: tools.map((name) => ({ name, title: name })) } as Parameters<typeof suggestionsFor>[0]);
    expect(chips).toHaveLength(tools.length + 1);
    for (const chip of chips) {
      const answered = plannedCalls(chip.text).length > 0 || !replyTo(chip.text).startsWith("I can't help");
      expect(answered, chip.label).toBe(true);
    }
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

  describe("after a run that ended early (its thread's note), asked again with nothing new said: a Retry", () => {
    const lost: TranscriptMessage = { id: "n", role: "system", content: "The Harbor instance running this stopped before the run ended." };
    const said = (n: number): TranscriptMessage => ({ id: `a${n}`, role: "assistant", content: String(n) });

    it("counts on from the last number said", async () => {
      const cut = [{ id: "1", role: "user" as const, content: "count slowly to 5" }, said(1), said(2), lost];
      expect(await planner.next(state(cut))).toEqual({ type: "say", text: "3", thenWaitMs: 0 });
    });

    it("answers a message the run never answered", async () => {
      expect(await planner.next(state([{ id: "1", role: "user", content: "hey" }, lost]))).toEqual({ type: "say", text: replyTo("hey") });
      const answered = [{ id: "1", role: "user" as const, content: "hey" }, lost, { id: "2", role: "assistant" as const, content: "…" }];
      expect(await planner.next(state(answered))).toEqual({ type: "finish" });
    });

    it("leaves the count as history once the user said something else", async () => {
      const cut = [
        { id: "1", role: "user" as const, content: "count slowly to 5" },
        said(1),
        lost,
        { id: "2", role: "user" as const, content: "hey" },
      ];
      expect(await planner.next(state(cut))).toEqual({ type: "say", text: replyTo("hey") });
    });
  });

  const ask = (content: string) => planner.next(state([{ id: "1", role: "user", content }]));

  it("maps the calendar and the travel agent to their tools, each in a message of its own", async () => {
    expect(await ask("Please check my calendar")).toEqual({ type: "call_tools", calls: [{ name: "calendar_today", args: {} }] });
    expect(await ask("ask the travel agent to book a trip.")).toEqual({
      type: "call_tools",
      calls: [{ name: "ask_travel_agent", args: { request: "Book a trip" } }],
    });
    expect(await ask("check my calendar\nsend an email to bob@example.com saying hi")).toMatchObject({
      type: "say",
      text: expect.stringContaining("in a message of its own"),
    });
  });

  it("reports today's events, and a cancelled consent or remote request", async () => {
    const after = (name: string, result: unknown) =>
      planner.next(
        state([
          { id: "1", role: "user", content: "…" },
          { id: "2", role: "assistant", content: "", toolCalls: [{ id: "c", name, args: {} }] },
          { id: "3", role: "tool", content: JSON.stringify(result), toolCallId: "c" },
        ]),
      );
    expect(await after("calendar_today", { date: "2026-11-29", events: [{ start: "09:30", end: "10:00", title: "Standup" }] })).toEqual({
      type: "say",
      text: "Today (2026-11-29) you have 1 event:\n- 09:30–10:00 Standup",
    });
    expect(await after("calendar_today", { date: "2026-11-29", events: [] })).toEqual({
      type: "say",
      text: "Your calendar is clear today (2026-11-29).",
    });
    expect(await after("calendar_today", { rejected: true, reason: "cancelled" })).toEqual({
      type: "say",
      text: "I did not read your calendar: the connection was cancelled.",
    });
    expect(await after("ask_travel_agent", { agent: "Travel agent", status: "completed", text: "Booked." })).toEqual({
      type: "say",
      text: "Travel agent: Booked.",
    });
    expect(await after("ask_travel_agent", { rejected: true })).toEqual({
      type: "say",
      text: "I cancelled the request to the travel agent.",
    });
  });

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
