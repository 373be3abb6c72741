/**
 * PostgreSQL's prepared statements: a parameterised statement is parsed and planned once per
 * connection under a name, then only bound and executed; a statement whose tables changed shape
 * under it goes unnamed instead of failing. (PGlite's own are pinned in pglite-thread.test.ts.)
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { queryRows } from "../../helpers/backends";
import { createPostgresDatabase } from "../../helpers/postgres";

const url = process.env.TEST_DATABASE_URL;

describe.runIf(url)("prepared statements on PostgreSQL", () => {
  /** One connection, so the statements it prepared are the ones `pg_prepared_statements` lists. */
  async function withOneConnection(prepared: boolean, work: (db: Awaited<ReturnType<typeof openDatabase>>["db"]) => Promise<void>) {
    const created = await createPostgresDatabase(url!);
    const handle = await openDatabase({ engine: "postgres", url: created.url, poolSize: 1, prepared });
    try {
      await work(handle.db);
    } finally {
      await handle.close();
      await created.drop();
    }
  }
  const preparedHere = (db: Awaited<ReturnType<typeof openDatabase>>["db"]) =>
    queryRows<{ name: string; statement: string }>(db, sql`select name, statement from pg_prepared_statements`);

  it("names each parameterised statement once and reuses it", async () => {
    await withOneConnection(true, async (db) => {
      for (const id of ["user-alice", "user-bob", "user-alice"]) {
        await queryRows(db, sql`select id from users where id = ${id}`);
      }
      const named = (await preparedHere(db)).filter((p) => p.statement.includes("select id from users where id = $1"));
      expect(named).toHaveLength(1);
      expect(named[0]!.name).toMatch(/^harbor_\d+$/);
    });
  });

  it("plans each named statement once and keeps that plan", async () => {
    await withOneConnection(true, async (db) => {
      for (const id of ["user-alice", "user-bob", "user-carol", "user-alice", "user-bob", "user-carol"]) {
        await queryRows(db, sql`select id from users where id = any(${sql.param([id])}::text[])`);
      }
      const plans = await queryRows<{ generic: number; custom: number }>(
        db,
        sql`select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where statement like '%any($1::text[])%'`,
      );
      expect(plans).toEqual([{ generic: 6, custom: 0 }]);
    });
  });

  it("prepares nothing when asked not to", async () => {
    await withOneConnection(false, async (db) => {
      await queryRows(db, sql`select id from users where id = ${"user-alice"}`);
      expect(await preparedHere(db)).toEqual([]);
    });
  });

  it("goes on unnamed when a table changed shape under a prepared statement", async () => {
    await withOneConnection(true, async (db) => {
      await db.execute(sql`create table shapes (id int primary key)`);
      await db.execute(sql`insert into shapes values (1)`);
      const read = () => queryRows<Record<string, unknown>>(db, sql`select * from shapes where id = ${1}`);
      expect(await read()).toEqual([{ id: 1 }]);
      await db.execute(sql`alter table shapes add column label text default 'one'`);
      expect(await read()).toEqual([{ id: 1, label: "one" }]);
      expect(await read()).toEqual([{ id: 1, label: "one" }]);
    });
  });
});
