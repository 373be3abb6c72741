import { EventSchemas } from "@ag-ui/core/schemas";
import { verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import type { LoggedEvent, RunEvent } from "@/server/runtime";
import { toAguiEvents } from "@/server/transport/agui";

const transport = { threadId: "thread-1", runId: "transport-run-1" };
const log = (events: RunEvent[]): LoggedEvent[] => events.map((event, i) => ({ runId: "harbor-run", seq: i + 1, at: 1_700_000_000_000 + i, event }));

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

  it("leave tool messages out of snapshots until tool calls can be represented", () => {
    const [snapshot] = log([
      { type: "snapshot", state: {}, messages: [{ id: "t", role: "tool", content: "{}" }, { id: "u", role: "user", content: "x" }] },
    ]);
    const [, messages] = toAguiEvents(snapshot!, transport);
    expect(messages).toMatchObject({ messages: [{ id: "u", role: "user" }] });
  });
});
