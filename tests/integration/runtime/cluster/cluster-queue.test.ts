/**
 * The cluster's queue as one instance sees it: a freed slot looks at the queue only when it may hold
 * a run — after a signal, or once the last empty look is old — and a look it skipped is still made.
 * A run queued without this instance hearing of it (a signal lost while its listener was down) is
 * taken once the look falls due, or at once when the listener comes back.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForSignals, type ClusterSignals } from "@/server/db/notifications";
import { beginRun } from "@/server/db/queries/run-writes";
import { findRun } from "@/server/db/queries/runs";
import { log } from "@/server/log";
import type { Runtime } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, drain, started, testRuntime } from "../../../helpers/runtime";

const RECHECK_MS = 3_000;
const ME = "i-queue";

describe.runIf(process.env.TEST_DATABASE_URL)("the cluster's queue, on postgres", () => {
  const database = useSeededDatabase(testBackends().find((b) => b.name === "postgres")!);
  let runtime: Runtime;
  let signals: ClusterSignals;
  let counter = 0;

  beforeAll(async () => {
    signals = await listenForSignals(database.handle.url!, ME, log);
    runtime = testRuntime(database.db, { alone: false, signals, instanceId: ME, queueRecheckMs: RECHECK_MS, sweepIntervalMs: 600_000 });
    await runtime.start();
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await signals.close();
  });

  /** A chat turn here, to its end: its slot frees as it completes. */
  async function chatTurn() {
    const threadId = `here-${++counter}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: "hello" }],
      }),
    );
    await drain(run.events);
    await runtime.idle();
  }

  /** A run another instance queued, written without the signal that would have told this one. */
  async function queuedElsewhere(): Promise<string> {
    const id = `elsewhere-${++counter}`;
    await beginRun(database.db, {
      thread: { id, tenantId: ALICE.tenantId, ownerId: ALICE.userId, title: id },
      messages: [{ id: `${id}-m`, role: "user", content: "hello" }],
      run: { id, agentId: "concierge", transportRunId: id, instanceId: "i-elsewhere" },
      events: [{ seq: 1, type: "run.started", data: { type: "run.started", runId: id, threadId: id, agentId: "concierge" } }],
    });
    await database.db.execute(sql`update runs set status = 'queued' where id = ${id}`);
    return id;
  }

  async function untilDone(runId: string, withinMs: number) {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      const run = await findRun(database.db, runId);
      if (run?.status === "completed") return run;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return findRun(database.db, runId);
  }

  it("makes the look a freed slot skipped once the last empty one is old enough, with nothing else happening", async () => {
    await chatTurn(); // its freed slot looks at the queue and finds it empty
    const runId = await queuedElsewhere();
    await chatTurn(); // too soon after that look: this slot's look is put off
    expect((await findRun(database.db, runId))?.status).toBe("queued");
    const run = await untilDone(runId, RECHECK_MS + 5_000);
    expect(run).toMatchObject({ status: "completed", instanceId: ME });
  });

  it("looks at once when its listener comes back, since signals sent meanwhile were lost", async () => {
    // No slot frees here meanwhile: only the listener's return can make this instance look.
    const runId = await queuedElsewhere();
    const [{ ended } = { ended: false }] = await queryRows<{ ended: boolean }>(
      database.db,
      sql`select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = ${`harbor-listen:${ME}`}`,
    );
    expect(ended).toBe(true);
    // Sooner than the recheck could: the reconnect (after its 250 ms pause) looks by itself.
    const run = await untilDone(runId, RECHECK_MS - 500);
    expect(run).toMatchObject({ status: "completed", instanceId: ME });
  });
});
