import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/server/domain";
import { applyRunEvent, type FollowedState } from "@/components/chat/run-events";

const empty: FollowedState = { messages: [], streaming: null, queuedAhead: null, running: false, error: null, progress: {} };

const reply: RunEvent[] = [
  { type: "run.started", runId: "r1", threadId: "t1", agentId: "concierge" },
  { type: "text.started", messageId: "m1" },
  { type: "text.delta", messageId: "m1", delta: "I did not make " },
  { type: "text.delta", messageId: "m1", delta: "the transfer." },
  { type: "text.ended", messageId: "m1" },
  { type: "tool.result", messageId: "m2", toolCallId: "c1", content: "{}" },
  { type: "run.completed", status: "rejected" },
];

const play = (events: RunEvent[], from = empty) => events.reduce(applyRunEvent, from);

describe("a run's events applied to the conversation", () => {
  it("shows a reply once, however often its events are applied (a second follower, a replayed log)", () => {
    const once = play(reply);
    expect(once.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(once.messages[0]!.content).toBe("I did not make the transfer.");
    const twice = play(reply, once);
    expect(twice.messages).toEqual(once.messages);
    expect(twice.running).toBe(false);
  });

  it("rebuilds a message that was streaming when the log is read again from its start (a dropped stream)", () => {
    const partial = play(reply.slice(0, 3));
    expect(partial.streaming).toEqual({ id: "m1", content: "I did not make " });
    const caughtUp = play(reply, partial);
    expect(caughtUp.messages.filter((m) => m.id === "m1").map((m) => m.content)).toEqual(["I did not make the transfer."]);
    expect(caughtUp.streaming).toBeNull();
  });

  it("adds text only to the message it belongs to", () => {
    const s = play([
      { type: "text.started", messageId: "a" },
      { type: "text.delta", messageId: "b", delta: "stray" },
    ]);
    expect(s.streaming).toEqual({ id: "a", content: "" });
  });
});
