import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "@/server/runtime";
import { assignCallIds, modelIdOf } from "@/server/runtime/agent/tool-call-ids";

const counter = () => {
  let n = 0;
  return () => `harbor-${++n}`;
};

const earlier: TranscriptMessage[] = [
  { id: "m1", role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "send_email", args: {} }] },
  { id: "m2", role: "tool", content: "{}", toolCallId: "call_0" },
  { id: "m3", role: "tool", content: "{}", toolCallId: "browser-7" },
];

describe("a model's tool call ids", () => {
  it("keep the model's own id when the thread has no call by that id", () => {
    expect(assignCallIds([], ["call_abc", "call_def"], counter())).toEqual([{ id: "call_abc" }, { id: "call_def" }]);
  });

  it("give a call Harbor's own id, remembering the model's, when the thread already uses it", () => {
    expect(assignCallIds(earlier, ["call_0", "browser-7", "call_1"], counter())).toEqual([
      { id: "harbor-1", modelId: "call_0" },
      { id: "harbor-2", modelId: "browser-7" },
      { id: "call_1" },
    ]);
  });

  it("give a repeat within one step Harbor's id toward the model too: one message's calls never share an id", () => {
    expect(assignCallIds([], ["call_1", "call_1", "call_2"], counter())).toEqual([{ id: "call_1" }, { id: "harbor-1" }, { id: "call_2" }]);
  });

  it("never use an id that could not be an id elsewhere in Harbor: none, empty, padded, too long or unstorable", () => {
    const long = "x".repeat(201);
    expect(assignCallIds([], [undefined, "", " call ", long, "bad\u0000id"], counter())).toEqual([
      { id: "harbor-1" },
      { id: "harbor-2" },
      { id: "harbor-3", modelId: " call " },
      { id: "harbor-4", modelId: long },
      // A NUL cannot be stored, so it cannot be sent back either: the model gets Harbor's id.
      { id: "harbor-5" },
    ]);
  });

  it("answer the model under its own id", () => {
    expect(modelIdOf({ id: "harbor-1", name: "t", args: {}, modelId: "call_0" })).toBe("call_0");
    expect(modelIdOf({ id: "call_9", name: "t", args: {} })).toBe("call_9");
  });
});
