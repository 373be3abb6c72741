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

describe("streamed text", () => {
  const delta = (text: string): RunEvent => ({ type: "text.delta", messageId: "m", delta: text });

  /** A store whose writes wait until `release` is called, recording each write's seqs. */
  function slowStore() {
    const writes: number[][] = [];
    const waiting: (() => void)[] = [];
    return {
      writes,
      release: () => waiting.splice(0).forEach((go) => go()),
      store: {
        insert: async (_runId: string, events: readonly { seq: number }[]) => {
          await new Promise<void>((go) => waiting.push(go));
          writes.push(events.map((e) => e.seq));
        },
      },
    };
  }
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("is published at once and stored soon after, then let go by the bus", async () => {
    const bus = new EventBus();
    const seen: number[] = [];
    bus.subscribe("r", (e) => seen.push(e.seq));
    const { writes, release, store } = slowStore();
    const journal = new RunJournal("r", store, bus);
    expect(journal.stream([{ type: "text.started", messageId: "m" }, delta("a")])).toBeUndefined();
    journal.stream([delta("b")]);
    // Seen before any write finished, and held for readers who read the log meanwhile.
    expect(seen).toEqual([1, 2, 3]);
    expect(bus.ahead("r", 1).map((e) => e.seq)).toEqual([2, 3]);
    release();
    await settle();
    release();
    await settle();
    // The first write took what was there; what came while it was in flight went in the next.
    expect(writes).toEqual([[1, 2], [3]]);
    expect(bus.ahead("r", 0)).toEqual([]);
  });

  it("is stored before anything appended after it, which is stored before it is published", async () => {
    const bus = new EventBus();
    const order: string[] = [];
    bus.subscribe("r", (e) => order.push(`published ${e.seq}`));
    const { writes, release, store } = slowStore();
    const journal = new RunJournal("r", store, bus);
    journal.stream([{ type: "text.started", messageId: "m" }, delta("a")]);
    journal.stream([delta("b")]);
    const ended = journal.append([{ type: "text.ended", messageId: "m" }]);
    release();
    await settle();
    release();
    await ended;
    order.push("appended");
    expect(writes).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(order).toEqual(["published 1", "published 2", "published 3", "published 4", "appended"]);
  });

  it("makes the model wait once a run is 1,000 events ahead of its writes", async () => {
    const { release, store } = slowStore();
    const journal = new RunJournal("r", store, new EventBus());
    for (let i = 0; i < 999; i++) expect(journal.stream([delta("x")])).toBeUndefined();
    const wait = journal.stream([delta("y")]);
    expect(wait).toBeInstanceOf(Promise);
    let over = false;
    void wait!.then(() => (over = true));
    await settle();
    expect(over).toBe(false);
    release();
    await settle();
    release();
    await settle();
    expect(over).toBe(true);
  });

  it("after a write fails, stops the stream and stores what it held with the next append", async () => {
    const writes: number[][] = [];
    let fail = true;
    const journal = new RunJournal(
      "r",
      {
        insert: async (_runId, events) => {
          if (fail) throw new Error("database down");
          writes.push(events.map((e) => e.seq));
        },
      },
      new EventBus(),
    );
    journal.stream([{ type: "text.started", messageId: "m" }, delta("a")]);
    await settle();
    expect(() => journal.stream([delta("b")])).toThrow("database down");
    fail = false;
    await journal.append([{ type: "text.ended", messageId: "m" }]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it("refuses to go out before deferred events are stored (whoever streams flushes first)", () => {
    const journal = new RunJournal("r", { insert: async () => undefined }, new EventBus());
    journal.defer([{ type: "tool.result", messageId: "t", toolCallId: "c", content: "ok" }]);
    expect(() => journal.stream([{ type: "text.started", messageId: "m" }])).toThrow("flush them first");
  });

  it("drops text the database refuses, so the run's failure can still be stored", async () => {
    const writes: string[][] = [];
    const bus = new EventBus();
    const journal = new RunJournal(
      "r",
      {
        insert: async (_runId, events) => {
          if (events.some((e) => e.type === "text.delta")) throw new Error("unsupported Unicode escape sequence");
          writes.push(events.map((e) => e.type));
        },
      },
      bus,
    );
    journal.stream([{ type: "text.started", messageId: "m" }, delta("bad")]);
    await settle();
    await expect(journal.append([{ type: "run.failed", code: "INTERNAL", message: "x" }])).rejects.toThrow("Unicode");
    expect(journal.dropUnstored()).toBe(true);
    expect(bus.ahead("r", 0)).toEqual([]);
    await journal.append([{ type: "run.failed", code: "INTERNAL", message: "x" }]);
    expect(writes).toEqual([["run.failed"]]);
  });
});
