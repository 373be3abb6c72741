/**
 * A stored value this release cannot read (written by a newer one, or damaged) fails the run it
 * belongs to, loudly — RUN_ERROR STATE_UNREADABLE naming the shape and the field — and nothing
 * else: other runs go on, and an operator can still cancel the run.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRun } from "@/server/db/queries/runs";
import type { InterruptView, Runtime } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../helpers/backends";
import { ALICE, CAROL, drain, started, testRuntime, watchUntil } from "../../helpers/runtime";

describe.each(testBackends())("state this release cannot read, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let counter = 0;
  beforeAll(() => {
    runtime = testRuntime(database.db);
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  async function parkEmail(): Promise<{ runId: string; gate: InterruptView }> {
    const id = `unreadable-${++counter}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId: id,
        transportRunId: id,
        messages: [{ id: `${id}-m`, role: "user", content: `send an email to ${id}@example.com saying hi` }],
      }),
    );
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error(`expected a gate, got ${last.type}`);
    return { runId: run.runId, gate: last.interrupts[0]! };
  }
  /** As a newer release would leave it: a checkpoint of a version this one does not know. */
  const fromTheFuture = (runId: string) =>
    database.db.execute(sql`update runs set checkpoint = jsonb_set(checkpoint, '{version}', '99') where id = ${runId}`);

  it("fails only that run, with STATE_UNREADABLE naming the checkpoint's version", async () => {
    const damaged = await parkEmail();
    const healthy = await parkEmail();
    await fromTheFuture(damaged.runId);

    const { continued } = await runtime.interactions.decide(ALICE, damaged.gate.id, true);
    expect(continued).toEqual([damaged.runId]);
    const events = await watchUntil(runtime, damaged.runId, (e) => e.type === "run.failed" || e.type === "run.completed", ALICE);
    const failed = events.at(-1)!;
    expect(failed).toMatchObject({ type: "run.failed", code: "STATE_UNREADABLE" });
    expect(failed.type === "run.failed" && failed.message).toMatch(/checkpoint.*version.*newer release \(version 99/);
    expect((await findRun(database.db, damaged.runId))?.status).toBe("failed");

    // The process goes on: the other run completes as usual.
    await runtime.interactions.decide(ALICE, healthy.gate.id, true);
    const done = await watchUntil(runtime, healthy.runId, (e) => e.type === "run.completed" || e.type === "run.failed", ALICE);
    expect(done.at(-1)?.type).toBe("run.completed");
  });

  it("still lets an operator cancel a run whose checkpoint it cannot read", async () => {
    const damaged = await parkEmail();
    await fromTheFuture(damaged.runId);
    expect(await runtime.runs.steer(CAROL, damaged.runId, { type: "CANCEL" })).toEqual({ accepted: true });
    await expect.poll(async () => (await findRun(database.db, damaged.runId))?.status).toBe("cancelled");
  });
});
