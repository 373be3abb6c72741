import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/server/domain";
import { applyRunEvent, failureOf, failureOfRequest, interrupted, type FollowedState } from "@/components/chat/run-events";

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

  it("says the model is asked again until its words come, and from a replayed log too", () => {
    const retried: RunEvent[] = [
      { type: "run.started", runId: "r2", threadId: "t1", agentId: "assistant" },
      { type: "model.retrying", attempt: 2, maxAttempts: 3, delayMs: 2000, reason: "HTTP 503" },
      { type: "model.retrying", attempt: 3, maxAttempts: 3, delayMs: 4000, reason: "HTTP 429" },
    ];
    const waiting = play(retried);
    expect(waiting.retrying).toEqual({ attempt: 3, maxAttempts: 3 });
    expect(waiting.running).toBe(true);
    const answered = play([...retried, { type: "text.started", messageId: "m9" }]);
    expect(answered.retrying).toBeNull();
    // A log read again after the reply was shown still clears it.
    const shown = { ...waiting, messages: [{ id: "m9", role: "assistant" as const, content: "Hi" }] };
    expect(play([{ type: "text.started", messageId: "m9" }], shown).retrying).toBeNull();
    expect(play([{ type: "run.failed", code: "MODEL_UNAVAILABLE", message: "down" }], waiting).retrying).toBeNull();
    expect(play([{ type: "tool.call", messageId: "m8", toolCallId: "c", name: "send_email", args: {} }], waiting).retrying).toBeNull();
  });

  it("adds text only to the message it belongs to", () => {
    const s = play([
      { type: "text.started", messageId: "a" },
      { type: "text.delta", messageId: "b", delta: "stray" },
    ]);
    expect(s.streaming).toEqual({ id: "a", content: "" });
  });
});

describe("how the conversation's latest run ended, as a page that opens or catches up shows it", () => {
  const lost = { code: "INSTANCE_LOST" as const, message: "The Harbor instance running this stopped before the run ended; try again." };

  it("shows the failure of a run that failed, with its reason and code; nothing for any other ending", () => {
    expect(failureOf({ runId: "r", status: "failed", error: lost })).toEqual({ message: lost.message, code: "INSTANCE_LOST" });
    expect(failureOf({ runId: "r", status: "completed", error: null })).toBeNull();
    expect(failureOf({ runId: "r", status: "running", error: null })).toBeNull();
    expect(failureOf(null)).toBeNull();
  });

  it("reads a run its instance took down as interrupted (Retry, whatever it had said); other failures as they are", () => {
    expect(interrupted(failureOf({ runId: "r", status: "failed", error: lost }))).toBe(true);
    expect(interrupted(applyRunEvent(empty, { type: "run.failed", ...lost }).error)).toBe(true);
    expect(interrupted({ message: "The model did not answer.", code: "MODEL_UNAVAILABLE" })).toBe(false);
    expect(interrupted({ message: "Your session has ended.", remedy: "sign-in" })).toBe(false);
    expect(interrupted(null)).toBe(false);
  });
});

describe("a refused request, as the person reads it", () => {
  it("says Harbor's own sentence, with its code, never the raw JSON", () => {
    const shed = new Error(
      `HTTP 503: ${JSON.stringify({ error: { code: "OVERLOADED", message: "This Harbor instance is busy and took nothing: send the request again in a moment." } })}`,
    );
    expect(failureOfRequest(shed)).toEqual({
      message: "This Harbor instance is busy and took nothing: send the request again in a moment.",
      code: "OVERLOADED",
    });
  });

  it("turns an ended session, another's conversation and a missing one into their remedies", () => {
    expect(failureOfRequest(new Error('HTTP 401: {"error":{"code":"UNAUTHENTICATED","message":"x"}}'))).toMatchObject({
      remedy: "sign-in",
    });
    expect(failureOfRequest(new Error("HTTP 403: Forbidden")).message).toBe("This conversation belongs to another user.");
    expect(failureOfRequest(new Error("HTTP 404: ")).message).toBe("This conversation or agent does not exist.");
  });

  it("quotes anything else as it came", () => {
    expect(failureOfRequest(new Error("HTTP 502: <html>Bad gateway</html>")).message).toBe(
      "The run failed: HTTP 502: <html>Bad gateway</html>",
    );
    expect(failureOfRequest(new TypeError("Failed to fetch")).message).toBe("The run failed: Failed to fetch");
  });
});
