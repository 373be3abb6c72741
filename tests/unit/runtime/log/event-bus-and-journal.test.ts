import { describe, expect, it } from "vitest";
import { EventBus } from "@/server/runtime/log/event-bus";
import type { LoggedEvent, RunEvent } from "@/server/runtime/log/events";
import { RunJournal } from "@/server/runtime/log/journal";

const logged = (runId: string, seq: number, event: RunEvent): LoggedEvent => ({ runId, seq, at: 0, event });

describe("the event bus", () => {
  it("follows one run's events in order and ends after its terminal event", async () => {
    const bus = new EventBus();
    const followed = bus.follow("a");
    bus.publish(logged("a", 1, { type: "run.started", runId: "a", threadId: "t", agentId: "x" }));
    bus.publish(logged("b", 1, { type: "run.completed" }));
    bus.publish(logged("a", 2, { type: "run.completed" }));
    bus.publish(logged("a", 3, { type: "text.started", messageId: "late" }));
    const seen: number[][] = [];
    for await (const batch of followed) seen.push(batch.map((e) => e.seq));
    // Everything that arrived together is handed over together, up to the terminal event.
    expect(seen).toEqual([[1, 2]]);
  });

  it("hands over events one batch at a time as they arrive", async () => {
    const bus = new EventBus();
    const followed = bus.follow("a");
    bus.publish(logged("a", 1, { type: "text.started", messageId: "m" }));
    expect((await followed.next()).value?.map((e: LoggedEvent) => e.seq)).toEqual([1]);
    const waiting = followed.next();
    bus.publish(logged("a", 2, { type: "text.ended", messageId: "m" }));
    expect((await waiting).value?.map((e: LoggedEvent) => e.seq)).toEqual([2]);
  });

  it("settles a read that is still waiting when the reader goes away", async () => {
    const bus = new EventBus();
    const followed = bus.follow("a");
    const waiting = followed.next();
    await followed.return?.();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });

  it("stops delivering to a reader that went away", async () => {
    const bus = new EventBus();
    const followed = bus.follow("a");
    await followed.return?.();
    bus.publish(logged("a", 1, { type: "run.completed" }));
    expect(await followed.next()).toEqual({ done: true, value: undefined });
    expect(bus.watched()).toEqual([]);
  });

  it("hands each reader each event once, from where that reader stands", () => {
    const bus = new EventBus();
    const early: number[] = [];
    const late: number[] = [];
    bus.subscribe("a", (e) => early.push(e.seq));
    // A reader that read the log up to 3 by itself (another instance's run, or a resumed feed).
    const reader = bus.subscribe("a", (e) => late.push(e.seq));
    reader.advance(3);
    for (const seq of [1, 2, 3, 4, 4, 5]) bus.publish(logged("a", seq, { type: "text.ended", messageId: "m" }));
    expect(early).toEqual([1, 2, 3, 4, 5]);
    expect(late).toEqual([4, 5]);
    expect(bus.position("a")).toBe(5);
  });
});

describe("the run journal", () => {
  it("numbers events per run from 1 and stores them before anyone sees them", async () => {
    const order: string[] = [];
    const stored: number[] = [];
    const bus = new EventBus();
    bus.subscribe("r", (e) => order.push(`published ${e.seq}`));
    const journal = new RunJournal(
      "r",
      {
        insert: async (_runId, events) => {
          stored.push(...events.map((e) => e.seq));
          order.push(`stored ${events.map((e) => e.seq).join(",")}`);
        },
      },
      bus,
    );
    await journal.append([{ type: "run.started", runId: "r", threadId: "t", agentId: "x" }]);
    await journal.append([
      { type: "text.started", messageId: "m" },
      { type: "text.ended", messageId: "m" },
    ]);
    expect(stored).toEqual([1, 2, 3]);
    expect(order).toEqual(["stored 1", "published 1", "stored 2,3", "published 2", "published 3"]);
  });

  it("publishes nothing when the write fails", async () => {
    const bus = new EventBus();
    const published: number[] = [];
    bus.subscribe("r", (e) => published.push(e.seq));
    const journal = new RunJournal("r", { insert: async () => Promise.reject(new Error("disk full")) }, bus);
    await expect(journal.append([{ type: "run.completed" }])).rejects.toThrow("disk full");
    expect(published).toEqual([]);
    // The failed write used no sequence number.
    expect(journal.prepare([{ type: "run.completed" }])[0]?.seq).toBe(1);
  });

  it("keeps deferred events for the next write when a write fails, and stores them with it", async () => {
    const writes: number[][] = [];
    let failing = true;
    const journal = new RunJournal(
      "r",
      {
        insert: async (_runId, events) => {
          if (failing) throw new Error("connection reset");
          writes.push(events.map((e) => e.seq));
        },
      },
      new EventBus(),
    );
    journal.defer([{ type: "tool.result", messageId: "m", toolCallId: "c", content: "{}" }]);
    await expect(journal.append([{ type: "text.started", messageId: "n" }])).rejects.toThrow("connection reset");
    failing = false;
    // The run's failure is recorded with the result that was waiting, numbered without a gap.
    await journal.append([{ type: "run.failed", code: "INTERNAL", message: "down" }]);
    expect(writes).toEqual([[1, 2]]);
  });
});
