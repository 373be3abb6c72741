import { EventSchemas } from "@ag-ui/core/schemas";
import { verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import type { InterruptView, LoggedEvent, RunEvent } from "@/server/runtime";
import { toAguiEvents, toInterrupt } from "@/server/transport/agui";

const transport = { threadId: "thread-1", runId: "transport-run-1", peer: "legacy" as const };
const log = (events: RunEvent[]): LoggedEvent[] =>
  events.map((event, i) => ({ runId: "harbor-run", seq: i + 1, at: 1_700_000_000_000 + i, event }));

async function verified(events: RunEvent[]) {
  const agui = log(events).flatMap((l) => toAguiEvents(l, transport));
  for (const e of agui) expect(EventSchemas.safeParse(e).success, e.type).toBe(true);
  return lastValueFrom(from(agui).pipe(verifyEvents(), toArray()));
}

describe("runtime events on the AG-UI wire", () => {
  it("name the transport run, not Harbor's run, and carry integer timestamps", async () => {
    const out = await verified([
      { type: "run.started", runId: "harbor-run", threadId: "thread-1", agentId: "concierge" },
      { type: "text.started", messageId: "m" },
      { type: "text.delta", messageId: "m", delta: "Hi" },
      { type: "text.ended", messageId: "m" },
      { type: "snapshot", state: { a: 1 }, messages: [{ id: "m", role: "assistant", content: "Hi" }] },
      { type: "run.completed" },
    ]);
    expect(out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "STATE_SNAPSHOT",
      "MESSAGES_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(out[0]).toMatchObject({ runId: "transport-run-1", threadId: "thread-1" });
    expect(out.at(-1)).toMatchObject({ runId: "transport-run-1", outcome: { type: "success" } });
    expect(out.every((e) => Number.isInteger(e.timestamp))).toBe(true);
  });

  it("turn a failed run into RUN_ERROR with its code, as the stream's last event", async () => {
    const out = await verified([
      { type: "run.started", runId: "harbor-run", threadId: "thread-1", agentId: "concierge" },
      { type: "run.failed", code: "STEP_LIMIT", message: "The run stopped after 100 planner steps." },
    ]);
    expect(out.at(-1)).toEqual({
      type: "RUN_ERROR",
      code: "STEP_LIMIT",
      message: "The run stopped after 100 planner steps.",
      timestamp: 1_700_000_000_001,
    });
  });

  const gate: InterruptView = {
    id: "pause-1",
    runId: "harbor-run",
    kind: "approval",
    reason: "hitl",
    policy: "owner",
    message: "Send an email to bob@example.com",
    expiresAt: 1_700_000_900_000,
    resumeToken: "token",
    toolCallId: "call-1",
    tool: { name: "send_email", args: { to: "bob@example.com", body: "hi" } },
  };
  const calling = {
    id: "a1",
    role: "assistant" as const,
    content: "",
    toolCalls: [{ id: "call-1", name: "send_email", args: { to: "bob@example.com", body: "hi" } }],
  };

  it("park a run as tool call events, pause.requested, snapshots and RUN_FINISHED with the approval interrupt", async () => {
    const out = await verified([
      { type: "run.started", runId: "harbor-run", threadId: "thread-1", agentId: "concierge" },
      { type: "tool.call", messageId: "a1", toolCallId: "call-1", name: "send_email", args: { to: "bob@example.com", body: "hi" } },
      { type: "pause.requested", ...gate },
      { type: "snapshot", state: {}, messages: [{ id: "u", role: "user", content: "send" }, calling] },
      { type: "run.paused", interrupts: [gate] },
    ]);
    expect(out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "CUSTOM",
      "STATE_SNAPSHOT",
      "MESSAGES_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(out[1]).toMatchObject({ toolCallId: "call-1", toolCallName: "send_email", parentMessageId: "a1" });
    expect(out[4]).toMatchObject({
      name: "pause.requested",
      value: {
        pauseId: "pause-1",
        runId: "harbor-run",
        reason: "hitl",
        kind: "approval",
        resumeToken: "token",
        expiresAt: "2023-11-14T22:28:20.000Z",
      },
    });
    expect(out[6]).toMatchObject({
      messages: [
        { id: "u" },
        {
          id: "a1",
          role: "assistant",
          toolCalls: [
            { id: "call-1", type: "function", function: { name: "send_email", arguments: '{"to":"bob@example.com","body":"hi"}' } },
          ],
        },
      ],
    });
    expect(out.at(-1)).toMatchObject({
      outcome: {
        type: "interrupt",
        interrupts: [
          {
            id: "pause-1",
            reason: "tool_call",
            toolCallId: "call-1",
            responseSchema: { type: "object", additionalProperties: false, required: ["approved"] },
            expiresAt: "2023-11-14T22:28:20.000Z",
            metadata: { harbor: { pauseId: "pause-1", pauseReason: "hitl", resumeToken: "token", tool: { name: "send_email" } } },
          },
        ],
      },
    });
  });

  it("continue a resumed run with pause.resumed and the gated call's TOOL_CALL_RESULT; a rejected run says so in result", async () => {
    const out = await verified([
      { type: "run.started", runId: "harbor-run", threadId: "thread-1", agentId: "concierge", resumed: true },
      { type: "pause.resumed", pauseId: "pause-1", runId: "harbor-run", decision: "rejected", actorId: "user-1" },
      { type: "tool.result", messageId: "t1", toolCallId: "call-1", content: '{"rejected":true}' },
      { type: "snapshot", state: {}, messages: [calling, { id: "t1", role: "tool", content: '{"rejected":true}', toolCallId: "call-1" }] },
      { type: "run.completed", status: "rejected" },
    ]);
    expect(out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "CUSTOM",
      "TOOL_CALL_RESULT",
      "STATE_SNAPSHOT",
      "MESSAGES_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(out[1]).toMatchObject({ name: "pause.resumed", value: { pauseId: "pause-1", decision: "rejected" } });
    expect(out[2]).toMatchObject({ toolCallId: "call-1", role: "tool", content: '{"rejected":true}' });
    expect(out[4]).toMatchObject({ messages: [{ id: "a1" }, { id: "t1", role: "tool", toolCallId: "call-1" }] });
    expect(out.at(-1)).toMatchObject({ outcome: { type: "success" }, result: { status: "rejected" } });
  });

  describe("an OAuth or remote agent pause as an interrupt", () => {
    const base = {
      runId: "harbor-run",
      policy: "owner" as const,
      expiresAt: 1_700_000_900_000,
      resumeToken: "token",
      toolCallId: "call-1",
    };

    it("carries the consent URL for oauth, with no answer a user could send", () => {
      const interrupt = toInterrupt({
        ...base,
        id: "pause-oauth",
        kind: "oauth",
        reason: "oauth",
        message: "Connect your demo calendar account to continue.",
        tool: { name: "calendar_today", args: {} },
        detail: { provider: "calendar", authorizationUrl: "http://127.0.0.1:1/auth?state=s" },
      });
      expect(interrupt).toMatchObject({
        id: "pause-oauth",
        reason: "oauth",
        toolCallId: "call-1",
        metadata: { harbor: { pauseReason: "oauth", provider: "calendar", authorizationUrl: "http://127.0.0.1:1/auth?state=s" } },
      });
      expect(interrupt).not.toHaveProperty("responseSchema");
    });

    it("says what the remote agent asks: more input, or a credential marked private", () => {
      const question = toInterrupt({
        ...base,
        id: "pause-a2a",
        kind: "a2a",
        reason: "a2a",
        message: "Which city?",
        responseSchema: { type: "object" },
        detail: { prompt: "input_required", agent: "Travel agent" },
      });
      expect(question).toMatchObject({
        reason: "input_required",
        message: "Which city?",
        responseSchema: { type: "object" },
        metadata: { harbor: { pauseReason: "a2a", agent: "Travel agent" } },
      });
      expect(question.metadata).not.toHaveProperty("harnest");
      const signIn = toInterrupt({
        ...base,
        id: "pause-auth",
        kind: "a2a",
        reason: "a2a",
        message: "Sign in",
        detail: { prompt: "auth_required", agent: "Travel agent" },
      });
      expect(signIn).toMatchObject({ reason: "auth_required", metadata: { harnest: { privateInput: true } } });
    });
  });
});
