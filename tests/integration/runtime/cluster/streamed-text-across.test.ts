/**
 * A model's text streamed on one instance, read on another (PostgreSQL: two runtimes on one
 * database, each with its own listener). The other instance never holds the unstored text: its
 * readers get each delta once it is stored and announced, and join at any moment with every
 * number once, in order, as stored.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { listenForSignals, type ClusterSignals } from "@/server/db/notifications";
import { log } from "@/server/log";
import type { Runtime } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { testRuntime } from "../../../helpers/runtime";
import { expectReadersJoiningMidStream, follow, storytellerAgents, tellStory } from "../../../helpers/storyteller";

describe.runIf(process.env.TEST_DATABASE_URL)("streamed text read on another instance, on postgres", () => {
  const database = useSeededDatabase(testBackends().find((b) => b.name === "postgres")!);
  const listeners: ClusterSignals[] = [];
  const handles: DatabaseHandle[] = [];
  const running: Runtime[] = [];

  /** An instance of its own: connections named as Harbor names them (their writes notify the others), and a listener. */
  async function instance(id: string) {
    const handle = await openDatabase({ engine: "postgres", url: database.handle.url!, poolSize: 4, applicationName: `harbor:${id}` });
    handles.push(handle);
    const signals = await listenForSignals(database.handle.url!, id, log);
    listeners.push(signals);
    const runtime = testRuntime(handle.db, {
      agents: storytellerAgents(),
      alone: false,
      signals,
      instanceId: id,
      textFrameMs: 0,
      maxSubscriptionsPerUser: 100,
      sweepIntervalMs: 600_000,
    });
    await runtime.start();
    running.push(runtime);
    return runtime;
  }

  let writer: Runtime;
  let reader: Runtime;
  beforeAll(async () => {
    writer = await instance("i-writer");
    reader = await instance("i-reader");
  });
  afterAll(async () => {
    for (const runtime of running) runtime.close();
    for (const runtime of running) await runtime.idle();
    for (const signals of listeners) await signals.close();
    for (const handle of handles) await handle.close();
  });

  it("reaches readers on the other instance who join mid-stream, every number once, as stored", async () => {
    const run = await tellStory(writer, "streamed-across");
    // Every 20 deltas one more reader on the other instance: from the start, or from a number the
    // writer published and may not have stored yet.
    await expectReadersJoiningMidStream({
      db: database.db,
      run,
      every: 20,
      startAt: (own, nth) => (nth % 2 === 0 ? 0 : own.at(-1)!.seq),
      follow: (from) => follow(reader, run.runId, from),
    });
  });
});
