/**
 * The embedded database on a worker thread of its own (`HARBOR_PGLITE_THREAD`): migrations, the
 * runtime's cycles, transactions that commit or roll back, PostgreSQL's errors with their codes,
 * and concurrent callers — the same behaviour as PGlite in the server's thread.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { seedDemo } from "@/server/db/seed";
import { queryRows } from "../../helpers/backends";
import { ALICE, drain, started, testRuntime } from "../../helpers/runtime";

describe("PGlite on its own thread", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openDatabase({ engine: "pglite", thread: true });
    await seedDemo(handle.db);
  }, 60_000);
  afterAll(async () => {
    await handle.close();
  });

  it("runs the runtime: a gate parks, its approval sends the email", async () => {
    const runtime = testRuntime(handle.db);
    try {
      const run = started(
        await runtime.startRun(ALICE, {
          agentId: "concierge",
          threadId: "thread-t1",
          transportRunId: "t1",
          messages: [{ id: "m1", role: "user", content: "send an email to thread@example.com saying hi" }],
        }),
      );
      const paused = (await drain(run.events)).at(-1)!.event;
      expect(paused.type).toBe("run.paused");
      const gate = paused.type === "run.paused" ? paused.interrupts[0]! : undefined;
      expect(await runtime.interactions.decide(ALICE, gate!.id, true)).toEqual({ continued: [run.runId] });
      await runtime.idle();
      const sent = await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from outbox where run_id = ${run.runId}`);
      expect(sent[0]!.n).toBe(1);
    } finally {
      runtime.close();
      await runtime.idle();
    }
  });

  it("commits a transaction, rolls one back, and reports PostgreSQL's errors with their codes", async () => {
    await handle.db.execute(sql`create table thread_check (id int primary key)`);
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_check values (1)`);
    });
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into thread_check values (2)`);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await queryRows<{ id: number }>(handle.db, sql`select id from thread_check order by id`)).toEqual([{ id: 1 }]);
    const duplicate = await handle.db.execute(sql`insert into thread_check values (1)`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(duplicate).toMatchObject({ cause: { code: "23505" } });
  });

  it("answers many callers at once, each with its own rows", async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => queryRows<{ n: number }>(handle.db, sql`select ${i}::int as n`)),
    );
    expect(answers.map((rows) => rows[0]!.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it("plans each prepared statement once and keeps that plan, on its thread and in the server's", async () => {
    const inThread = await openDatabase({ engine: "pglite" });
    try {
      for (const db of [handle.db, inThread.db]) {
        for (const id of ["user-alice", "user-bob", "user-carol", "user-alice", "user-bob", "user-carol"]) {
          await queryRows(db, sql`select ${id}::text = any(${sql.param(["user-alice"])}::text[]) as listed`);
        }
        const plans = await queryRows<{ generic: number; custom: number }>(
          db,
          sql`select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where statement like '%= any($2::text[])%'`,
        );
        expect(plans).toEqual([{ generic: 6, custom: 0 }]);
      }
    } finally {
      await inThread.close();
    }
  });

  it("reads each value with the statement's own parsers first, then PGlite's, on its thread and in the server's", async () => {
    const inThread = await openDatabase({ engine: "pglite" });
    try {
      for (const db of [handle.db, inThread.db]) {
        for (let i = 0; i < 2; i++) {
          const [row] = await queryRows<{ n: number; at: unknown; j: unknown; big: unknown; ok: unknown; ats: unknown }>(
            db,
            sql`select ${i}::int as n, timestamptz '2026-01-02 03:04:05+00' as at, ${JSON.stringify({ a: [1] })}::jsonb as j,
              9007199254740993::bigint as big, true as ok, array[timestamptz '2026-01-02 03:04:05+00'] as ats`,
          );
          // Drizzle keeps timestamps and their arrays as text; PGlite parses the rest.
          expect(row).toEqual({
            n: i,
            at: "2026-01-02 03:04:05+00",
            j: { a: [1] },
            big: 9007199254740993n,
            ok: true,
            ats: '{"2026-01-02 03:04:05+00"}',
          });
        }
      }
    } finally {
      await inThread.close();
    }
  });
});
