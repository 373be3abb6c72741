/**
 * The claim that resumes a parked run, racing the steering held with that run: what the resume
 * drives on with must include every instruction whose hold succeeded.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { claimInteractions, pendingOfRun } from "@/server/db/queries/interactions";
import { findRun, holdSteering } from "@/server/db/queries/runs";
import type { Runtime } from "@/server/runtime";
import { postgresBackend, queryRows, required, useSeededDatabase } from "../../helpers/backends";
import { ALICE as alice, started, testRuntime, watchUntil } from "../../helpers/runtime";

// Only PostgreSQL runs two statements at once; PGlite has one connection and serializes them.
const postgres = postgresBackend();

describe.skipIf(!postgres)("claiming a parked run while steering is held with it, on postgres", () => {
  const database = useSeededDatabase(required(postgres));
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 5 }) });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  it("resumes with the instruction held by a statement that committed while the claim waited for the run's row", async () => {
    const run = started(
      await runtime.startRun(alice, {
        agentId: "concierge",
        threadId: "c-race",
        transportRunId: "c-race",
        messages: [{ id: "c-race-1", role: "user", content: "send an email to x@example.com saying hi" }],
      }),
    );
    await watchUntil(runtime, run.runId, (e) => e.type === "run.paused");
    const [gate] = await pendingOfRun(database.db, run.runId);
    const message = {
      instruction: { type: "USER_MESSAGE" as const, message: "and sign it Alice" },
      actorId: alice.userId,
      actorRole: "owner" as const,
    };

    let commitHold!: () => void;
    const holding = database.db.transaction(async (tx) => {
      expect((await holdSteering(tx, run.runId, message, 20)).held).toBe(true);
      await new Promise<void>((resolve) => (commitHold = resolve));
    });
    await expect.poll(() => typeof commitHold).toBe("function");
    // The claim's snapshot is taken now, before the hold commits; its update of the run waits for the row.
    const claiming = claimInteractions(
      database.db,
      [{ id: gate!.id, status: "resolved", decision: { approved: true } }],
      { tenantId: alice.tenantId, userId: "user-bob", via: "test" },
      "i-test",
    );
    await expect
      .poll(
        async () =>
          (
            await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'`)
          )[0]!.n,
      )
      .toBe(1);
    commitHold();
    await holding;
    const claim = await claiming;
    expect(claim.continuations.get(run.runId)?.read().checkpoint?.steering).toEqual([message]);
    expect((await findRun(database.db, run.runId))?.status).toBe("running");
  });
});
