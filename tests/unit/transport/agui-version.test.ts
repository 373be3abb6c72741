import { EventSchemas } from "@ag-ui/core/schemas";
import { verifyEvents } from "@ag-ui/client";
import { EventSchemas as EventSchemas059 } from "agui-core-059";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { HarborError, type InterruptView, type RunEvent } from "@/server/runtime";
import { runCancelled, toAguiEvents, type TransportRun } from "@/server/transport/agui";
import { aguiPeerOf, HARBOR_AGUI_VERSION } from "@/server/transport/agui-version";

const peers = {
  "1.x": { threadId: "thread-1", runId: "transport-1", peer: "1.x" },
  legacy: { threadId: "thread-1", runId: "transport-1", peer: "legacy" },
} satisfies Record<string, TransportRun>;

/** The events a peer receives, each valid by its own generation's schema, and verified in order. */
async function received(peer: keyof typeof peers, events: RunEvent[]) {
  const agui = events.flatMap((event, i) =>
    toAguiEvents({ runId: "harbor-run", seq: i + 1, at: 1_700_000_000_000 + i, event }, peers[peer]),
  );
  const schema = peer === "1.x" ? EventSchemas : EventSchemas059;
  for (const e of agui) expect(schema.safeParse(e).success, `${e.type} for a ${peer} peer`).toBe(true);
  return lastValueFrom(from(agui).pipe(verifyEvents(), toArray()));
}

const started: RunEvent = { type: "run.started", runId: "harbor-run", threadId: "thread-1", agentId: "assistant" };
const browserWait: InterruptView = {
  id: "request-1",
  runId: "harbor-run",
  kind: "client_tool",
  reason: null,
  policy: "owner",
  message: "pick_color runs in your browser",
  expiresAt: 1_700_000_900_000,
  resumeToken: "token",
  toolCallId: "call_color",
  tool: { name: "pick_color", args: {} },
};

describe("the AG-UI version a client speaks", () => {
  it("is 1.x for any 1.x minor, legacy when the client sends none", () => {
    expect(aguiPeerOf("1.0")).toBe("1.x");
    expect(aguiPeerOf("1.7")).toBe("1.x");
    expect(aguiPeerOf("1.0.3")).toBe("1.x");
    expect(aguiPeerOf(undefined)).toBe("legacy");
  });

  it("refuses another major as UNSUPPORTED_PROTOCOL, and a malformed version as INVALID_INPUT naming the field", () => {
    expect(() => aguiPeerOf("2.0")).toThrow(expect.objectContaining({ code: "UNSUPPORTED_PROTOCOL" }));
    expect(() => aguiPeerOf("0.9")).toThrow(HarborError);
    expect(() => aguiPeerOf("one")).toThrow(expect.objectContaining({ code: "INVALID_INPUT", details: { field: "protocolVersion" } }));
  });
});

describe("RUN_STARTED and RUN_FINISHED for each generation of peer", () => {
  it("declare Harbor's own version in RUN_STARTED to every peer", async () => {
    for (const peer of ["1.x", "legacy"] as const) {
      const [first] = await received(peer, [started, { type: "run.completed" }]);
      expect(first).toMatchObject({ type: "RUN_STARTED", protocolVersion: HARBOR_AGUI_VERSION });
    }
    expect(HARBOR_AGUI_VERSION).toMatch(/^1\.\d+$/);
  });

  it("end a cancelled run with the cancelled outcome for 1.x, and success with result.status for a legacy peer", async () => {
    const cancelled: RunEvent[] = [started, { type: "run.cancelled", by: "owner" }, { type: "run.completed", status: "cancelled" }];
    expect((await received("1.x", cancelled)).at(-1)).toEqual({
      type: "RUN_FINISHED",
      threadId: "thread-1",
      runId: "transport-1",
      outcome: { type: "cancelled" },
      timestamp: 1_700_000_000_002,
    });
    expect((await received("legacy", cancelled)).at(-1)).toMatchObject({ outcome: { type: "success" }, result: { status: "cancelled" } });
    expect(runCancelled(peers["1.x"], 5).outcome).toEqual({ type: "cancelled" });
  });

  it("keep a rejected run a success that says so in result, for both", async () => {
    for (const peer of ["1.x", "legacy"] as const) {
      const last = (await received(peer, [started, { type: "run.completed", status: "rejected" }])).at(-1);
      expect(last).toMatchObject({ outcome: { type: "success" }, result: { status: "rejected" } });
    }
  });

  it("tell a 1.x peer this stretch's token usage, and nothing where no model was asked", async () => {
    const usage = { inputTokens: 120, outputTokens: 30 };
    const done = (await received("1.x", [started, { type: "run.completed", usage }])).at(-1);
    expect(done).toMatchObject({ usage: [{ inputTokens: 120, outputTokens: 30, totalTokens: 150 }] });
    expect((await received("1.x", [started, { type: "run.completed" }])).at(-1)).not.toHaveProperty("usage");
    expect((await received("legacy", [started, { type: "run.completed", usage }])).at(-1)).not.toHaveProperty("usage");
  });

  it("list the browser tools a run waits for in pendingToolCallIds for 1.x; a legacy peer gets plain success", async () => {
    const waiting: RunEvent[] = [
      started,
      { type: "tool.call", messageId: "a1", toolCallId: "call_color", name: "pick_color", args: {} },
      { type: "client_tool.requested", requestId: "request-1", toolCallId: "call_color", toolName: "pick_color" },
      { type: "run.paused", interrupts: [browserWait], usage: { inputTokens: 5, outputTokens: 2 } },
    ];
    expect((await received("1.x", waiting)).at(-1)).toMatchObject({
      outcome: { type: "success", pendingToolCallIds: ["call_color"] },
      usage: [{ inputTokens: 5, outputTokens: 2, totalTokens: 7 }],
    });
    const legacy = (await received("legacy", waiting)).at(-1);
    expect(legacy).toMatchObject({ outcome: { type: "success" } });
    expect(legacy).not.toHaveProperty("usage");
    expect(JSON.stringify(legacy)).not.toContain("pendingToolCallIds");
  });
});
