/**
 * Several new runs begun in one statement (begin-run's group commit): each is admitted or refused
 * on its own — its thread's owner, its open gates, its length limit, its double-texting policy,
 * its caller's remembered credential — and a refused one writes nothing at all.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { appendRunEvents, beginRun, beginRuns, type BeginRunInput } from "@/server/db/queries/run-writes";
import { findRun, listRunEvents, loadContinuation } from "@/server/db/queries/runs";
import { createSession, revokeSession } from "@/server/db/queries/sessions";
import { listMessages } from "@/server/db/queries/threads";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

/** A new run of `ownerId` on `threadId` saying two things. */
function input(threadId: string, runId: string, ownerId = "user-alice", extra: Partial<BeginRunInput> = {}): BeginRunInput {
  return {
    thread: { id: threadId, tenantId: "tenant-acme", ownerId, title: `title of ${threadId}` },
    messages: [
      { id: `${runId}-a`, role: "user", content: `${runId} first` },
      { id: `${runId}-b`, role: "user", content: `${runId} second` },
    ],
    run: { id: runId, agentId: "concierge", transportRunId: runId, instanceId: "i-test" },
    events: [{ seq: 1, type: "run.started", data: { type: "run.started", runId, threadId, agentId: "concierge" } }],
    ...extra,
  };
}

/** Parks the run `runId` (begun on its thread) at an approval gate. */
async function park(h: { db: DatabaseHandle["db"] }, threadId: string, runId: string) {
  await appendRunEvents(h.db, [
    {
      runId,
      events: [{ seq: 2, type: "run.paused", data: { type: "run.paused", interrupts: [] } }],
      alongside: {
        run: { status: "paused", pauseReason: "hitl", checkpoint: { step: 1, calls: [] } },
        interactions: [
          {
            id: `gate-${runId}`,
            tenantId: "tenant-acme",
            threadId,
            ownerId: "user-alice",
            kind: "approval",
            pauseReason: "hitl",
            policy: "owner",
            message: "Go on?",
            instanceId: "i-test",
            expiresAt: new Date(Date.now() + 60_000),
          },
        ],
      },
    },
  ]);
}

describe.each(testBackends())("several runs begun in one statement, on $name", (backend) => {
  const h = useSeededDatabase(backend);

  it("admits each run on its own and writes nothing for the refused ones", async () => {
    await beginRun(h.db, input("t-alices", "r-setup"));
    await beginRun(h.db, input("t-not-bobs", "r-not-bobs"));
    await beginRun(h.db, input("t-gated", "r-gated"));
    await park(h, "t-gated", "r-gated");
    await beginRun(h.db, input("t-busy", "r-busy"));
    const ended = await createSession(h.db, "user-alice");
    await revokeSession(h.db, ended);

    const begun = await beginRuns(h.db, [
      input("t-fresh", "r-fresh", "user-alice", { thread: { ...input("t-fresh", "").thread, state: { fresh: true } } }),
      input("t-not-bobs", "r-bob", "user-bob"), // another owner's thread
      input("t-gated", "r-waits"), // an open gate stands in the way
      input("t-busy", "r-rejected", "user-alice", { onlyIfIdle: true }), // r-busy still runs
      input("t-long", "r-long", "user-alice", { maxMessages: 1 }), // two messages would exceed it
      input("t-stale", "r-stale", "user-alice", {
        unverified: { credential: { kind: "session", userId: "user-alice", sessionId: ended }, role: "member" },
      }),
      input("t-alices", "r-again", "user-alice", { thread: { ...input("t-alices", "").thread, state: { again: 1 } } }),
    ]);

    expect(begun.map((thread) => thread?.id)).toEqual(["t-fresh", undefined, undefined, undefined, undefined, undefined, "t-alices"]);
    expect(begun[0]).toMatchObject({ created: true, state: { fresh: true }, title: "title of t-fresh" });
    expect(begun[6]).toMatchObject({ created: false, state: { again: 1 } });
    expect((await listMessages(h.db, "t-fresh")).map((m) => m.content)).toEqual(["r-fresh first", "r-fresh second"]);
    expect((await listMessages(h.db, "t-alices")).map((m) => m.runId)).toEqual(["r-setup", "r-setup", "r-again", "r-again"]);
    expect((await listRunEvents(h.db, "r-again")).map((e) => e.type)).toEqual(["run.started"]);
    for (const refused of ["r-bob", "r-waits", "r-rejected", "r-long", "r-stale"]) {
      expect(await findRun(h.db, refused)).toBeUndefined();
      expect(await listRunEvents(h.db, refused)).toEqual([]);
    }
    expect(await listMessages(h.db, "t-gated")).toHaveLength(2);
    expect(await listMessages(h.db, "t-not-bobs")).toHaveLength(2);
    expect(await listMessages(h.db, "t-long")).toEqual([]);
    const threads = await h.db.execute(sql`select id from threads where id in ('t-long', 't-stale') `);
    expect((threads as unknown as { rows: unknown[] }).rows).toEqual([]);
  });

  it("keeps a waiting run's messages with the run, not the thread, until its turn", async () => {
    const [held] = await beginRuns(h.db, [input("t-held", "r-held", "user-alice", { holdMessages: true }), input("t-open", "r-open")]);
    expect(held).toMatchObject({ created: true, held: true });
    expect(await listMessages(h.db, "t-held")).toEqual([]);
    expect((await findRun(h.db, "r-held"))?.readCheckpoint()).toMatchObject({ pendingInput: [{ id: "r-held-a" }, { id: "r-held-b" }] });
    expect(await listMessages(h.db, "t-open")).toHaveLength(2);
  });

  it("keeps them with the run too when asked to, if another run of the thread executes or waits", async () => {
    await beginRun(h.db, input("t-running", "r-running"));
    const [behind, alone] = await beginRuns(h.db, [
      input("t-running", "r-behind", "user-alice", { holdIfThreadBusy: true }),
      input("t-alone", "r-alone", "user-alice", { holdIfThreadBusy: true }),
    ]);
    expect(behind?.held).toBe(true);
    expect((await listMessages(h.db, "t-running")).map((m) => m.runId)).toEqual(["r-running", "r-running"]);
    expect((await findRun(h.db, "r-behind"))?.readCheckpoint()).toMatchObject({
      pendingInput: [{ id: "r-behind-a" }, { id: "r-behind-b" }],
    });
    expect(alone?.held).toBe(false);
    expect((await findRun(h.db, "r-alone"))?.readCheckpoint()).toBeNull();
    expect(await listMessages(h.db, "t-alone")).toHaveLength(2);
  });
});

describe.each(testBackends())("a run's continuation, on $name", (backend) => {
  const h = useSeededDatabase(backend);

  it("names the thread's earlier runs still queued or running, oldest first, and no later ones", async () => {
    for (const runId of ["r-done", "r-old", "r-queued", "r-me", "r-young"]) await beginRun(h.db, input("t-ahead", runId));
    await h.db.execute(
      sql`update runs set status = case id when 'r-done' then 'completed' when 'r-queued' then 'queued' else status end where thread_id = 't-ahead'`,
    );
    expect((await loadContinuation(h.db, "r-me"))?.ahead).toEqual(["r-old", "r-queued"]);
    expect((await loadContinuation(h.db, "r-old"))?.ahead).toEqual([]);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("two runs begun on one thread at once by two instances, on postgres", () => {
  const h = useSeededDatabase(testBackends().find((b) => b.name === "postgres")!);

  /** Until a statement of this database waits for a lock (the thread's row). */
  const someoneWaitsForALock = async () => {
    for (let tries = 0; tries < 200; tries++) {
      const [row] = await queryRows<{ n: number }>(
        h.db,
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (row!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("the second statement never waited for the first one's lock");
  };

  /** Begins `first` inside a transaction left open, then `second`, which waits; commits the first. */
  async function race(threadId: string, first: string, second: string) {
    let release!: () => void;
    const committing = new Promise<void>((resolve) => (release = resolve));
    let firstWritten!: () => void;
    const written = new Promise<void>((resolve) => (firstWritten = resolve));
    // The first instance's write holds the thread's row until it commits.
    const earlier = h.db.transaction(async (tx) => {
      const begun = await beginRun(tx, input(threadId, first, "user-alice", { holdIfThreadBusy: true }));
      firstWritten();
      await committing;
      return begun;
    });
    await written;
    // The second's statement starts now, before the first commits: its snapshot cannot see the first run.
    const later = beginRun(h.db, input(threadId, second, "user-alice", { holdIfThreadBusy: true }));
    await someoneWaitsForALock();
    release();
    return { first: await earlier, second: await later };
  }

  const ages = (threadId: string) =>
    queryRows<{ id: string }>(h.db, sql`select id from runs where thread_id = ${threadId} order by created_at, id`).then((rows) =>
      rows.map((r) => r.id),
    );

  it("the later one sees the earlier one once it commits, and is the younger of the two", async () => {
    await beginRun(h.db, input("t-raced", "r-setup"));
    await h.db.execute(sql`update runs set status = 'completed' where id = 'r-setup'`);
    const { first, second } = await race("t-raced", "r-first", "r-second");
    expect(first).toMatchObject({ held: false, clear: true });
    expect(second).toMatchObject({ held: true, clear: false });
    expect((await listMessages(h.db, "t-raced")).map((m) => m.runId)).toEqual(["r-setup", "r-setup", "r-first", "r-first"]);
    expect(await ages("t-raced")).toEqual(["r-setup", "r-first", "r-second"]);
  });

  it("so too on a thread neither has created yet", async () => {
    const { first, second } = await race("t-new-raced", "r-new-first", "r-new-second");
    expect(first).toMatchObject({ created: true, held: false, clear: true });
    expect(second).toMatchObject({ created: false, held: true });
    expect(await ages("t-new-raced")).toEqual(["r-new-first", "r-new-second"]);
  });

  it("ages a run from when it held the thread, not from when its transaction began", async () => {
    const second = await h.db.transaction(async (tx) => {
      await tx.execute(sql`select now()`); // its transaction's clock starts here
      await beginRun(h.db, input("t-aged", "r-aged-first", "user-alice", { holdIfThreadBusy: true }));
      return beginRun(tx, input("t-aged", "r-aged-second", "user-alice", { holdIfThreadBusy: true }));
    });
    expect(second?.held).toBe(true);
    expect(await ages("t-aged")).toEqual(["r-aged-first", "r-aged-second"]);
  });

  it("is not clear of a paused run of the thread, which background work may set going without the thread's lock", async () => {
    await beginRun(h.db, input("t-paused", "r-paused"));
    await h.db.execute(sql`update runs set status = 'paused' where id = 'r-paused'`);
    const [begun] = await beginRuns(h.db, [input("t-paused", "r-next", "user-alice", { holdIfThreadBusy: true })]);
    expect(begun).toMatchObject({ held: false, clear: false });
  });
});
