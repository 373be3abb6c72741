/**
 * A model's text is published before it is stored. Readers who come at any moment — while some of
 * it is published and not stored yet — read the log, then the rest, then the live tail: every
 * number once, in order, with the same events as the run's own stream and the stored log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRunEvents } from "@/server/db/queries/runs";
import type { Runtime } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, drain, testRuntime } from "../../../helpers/runtime";
import { expectReadersJoiningMidStream, follow, storytellerAgents, tellStory, textOf } from "../../../helpers/storyteller";

describe.each(testBackends())("streamed text on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db, {
      agents: storytellerAgents(),
      textFrameMs: 0,
      maxSubscriptionsPerUser: 100,
    });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  it("reaches readers who join mid-stream with every number once, as stored", async () => {
    const run = await tellStory(runtime, "streamed-text");
    // Readers join while the text streams, each at its own moment: from the start, or a few numbers back.
    await expectReadersJoiningMidStream({
      db: database.db,
      run,
      every: 10,
      startAt: (own, nth) => (nth % 2 === 0 ? 0 : own.at(-10)!.seq),
      follow: (from) => follow(runtime, run.runId, from),
    });
  });

  it("stores the text before the message that ends it, and the message holds it all", async () => {
    const run = await tellStory(runtime, "streamed-text-2");
    const events = await drain(run.events);
    const ended = events.find((l) => l.event.type === "text.ended")!;
    const stored = await listRunEvents(database.db, run.runId, 0, 10_000);
    expect(stored.filter((r) => r.seq < ended.seq)).toHaveLength(ended.seq - 1);
    const { messages } = await runtime.threads.get(ALICE, "streamed-text-2");
    expect(messages.find((m) => m.role === "assistant")?.content).toBe(textOf(events));
  });
});
