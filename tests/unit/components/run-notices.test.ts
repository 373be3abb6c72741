import { describe, expect, it } from "vitest";
import { runNotice, withNotice, type NoticeState } from "@/components/chat/run-notices";
import { WIRE_EVENTS } from "@/server/domain";

const counting: NoticeState = {
  messages: [
    { id: "u1", role: "user", content: "count slowly to 9" },
    { id: "a1", role: "assistant", content: "1" },
  ],
  streaming: { id: "a2", content: "2" },
  queuedAhead: null,
};

describe("what a run says about itself, in the chat", () => {
  it("reads run.queued and run.cancelled as the wire carries them, and nothing else", () => {
    expect(runNotice(WIRE_EVENTS.runQueued, { runId: "r", position: 2 })).toEqual({ type: "queued", position: 2 });
    expect(runNotice(WIRE_EVENTS.runCancelled, { runId: "r", by: { role: "operator" } })).toEqual({ type: "cancelled", by: "operator" });
    expect(runNotice(WIRE_EVENTS.runQueued, { runId: "r", position: -1 })).toBeNull();
    expect(runNotice(WIRE_EVENTS.runCancelled, { runId: "r", by: "operator" })).toBeNull();
    expect(runNotice(WIRE_EVENTS.runCancelled, { runId: "r", by: { role: "mallory" } })).toBeNull();
    expect(runNotice(WIRE_EVENTS.clientTool, { runId: "r", position: 1 })).toBeNull();
  });

  it("reads model.retrying as the wire carries it: which attempt comes next, of how many", () => {
    const wire = { runId: "r", attempt: 2, maxAttempts: 3, delayMs: 2000, reason: "HTTP 503" };
    expect(runNotice(WIRE_EVENTS.modelRetrying, wire)).toEqual({ type: "retrying", attempt: 2, maxAttempts: 3 });
    expect(runNotice(WIRE_EVENTS.modelRetrying, { ...wire, attempt: 1 })).toBeNull();
    expect(runNotice(WIRE_EVENTS.modelRetrying, { runId: "r" })).toBeNull();
    expect(withNotice(counting, { type: "retrying", attempt: 3, maxAttempts: 3 }).retrying).toEqual({ attempt: 3, maxAttempts: 3 });
  });

  it("shows a queued run's place", () => {
    expect(withNotice(counting, { type: "queued", position: 3 }).queuedAhead).toBe(3);
  });

  it("ends a cancelled run with a note after what was said so far", () => {
    const next = withNotice({ ...counting, queuedAhead: 1 }, { type: "cancelled", by: "operator" });
    expect(next.streaming).toBeNull();
    expect(next.queuedAhead).toBeNull();
    expect(next.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "count slowly to 9"],
      ["assistant", "1"],
      ["assistant", "2"],
      ["system", "Run cancelled by an operator."],
    ]);
  });

  it("does not repeat the note the server already put in the thread", () => {
    const withServerNote: NoticeState = {
      ...counting,
      streaming: null,
      messages: [...counting.messages, { id: "s1", role: "system", content: "Run cancelled by an operator." }],
    };
    expect(withNotice(withServerNote, { type: "cancelled", by: "operator" }).messages).toEqual(withServerNote.messages);
  });

  it("notes a later cancel again, after a new message", () => {
    const earlier: NoticeState = {
      streaming: null,
      queuedAhead: null,
      messages: [
        { id: "u1", role: "user", content: "count slowly to 9" },
        { id: "s1", role: "system", content: "Run cancelled by an operator." },
        { id: "u2", role: "user", content: "count slowly to 3" },
      ],
    };
    const next = withNotice(earlier, { type: "cancelled", by: "owner" });
    expect(next.messages.at(-1)).toMatchObject({ role: "system", content: "Run cancelled by its owner." });
  });
});
