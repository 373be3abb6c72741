/**
 * Migrations apply in order on every database they may meet. Drizzle applies only the migrations
 * whose timestamp is newer than the last one a database ran, so timestamps must rise with the
 * journal; 0026 once broke that, and now also applies on a database that had it already.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "@/server/db/client";

interface Journal {
  entries: { idx: number; tag: string; when: number }[];
}

const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8")) as Journal;

/** A migrations folder with the journal's entries as `edit` makes them. */
function folderOf(edit: (entries: Journal["entries"]) => Journal["entries"]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-migrations-"));
  const entries = edit(journal.entries.map((e) => ({ ...e })));
  fs.mkdirSync(path.join(dir, "meta"));
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) fs.copyFileSync(path.join(MIGRATIONS_DIR, `${tag}.sql`), path.join(dir, `${tag}.sql`));
  return dir;
}

const tables = async (db: PGlite) =>
  (await db.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public'")).rows.map(
    (r) => r.name,
  );

describe("the migrations' order", () => {
  const open: PGlite[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.close();
  });

  it("has timestamps that rise with the journal", () => {
    const whens = journal.entries.map((e) => e.when);
    expect(whens).toEqual([...whens].sort((a, b) => a - b));
    expect(new Set(whens).size).toBe(whens.length);
  });

  it("brings a database that stopped at 0025 to the end", async () => {
    const db = new PGlite();
    open.push(db);
    const upTo0025 = journal.entries.findIndex((e) => e.tag === "0026_mcp_servers");
    await migrate(drizzle(db), { migrationsFolder: folderOf((entries) => entries.slice(0, upTo0025)) });
    expect(await tables(db)).not.toContain("mcp_servers");
    await migrate(drizzle(db), { migrationsFolder: MIGRATIONS_DIR });
    expect(await tables(db)).toContain("mcp_servers");
  }, 60_000);

  it("runs 0026 again harmlessly on a database that got it under its first timestamp", async () => {
    const db = new PGlite();
    open.push(db);
    const upTo0026 = journal.entries.findIndex((e) => e.tag === "0026_mcp_servers") + 1;
    const firstTimestamp = (entries: Journal["entries"]) =>
      entries.slice(0, upTo0026).map((e) => (e.tag === "0026_mcp_servers" ? { ...e, when: 1_796_466_996_401 } : e));
    await migrate(drizzle(db), { migrationsFolder: folderOf(firstTimestamp) });
    await db.query("insert into tenants (id, slug, name) values ('t1', 't1', 'T1')");
    await db.query(
      "insert into mcp_servers (id, tenant_id, name, url, catalog, created_by) values ('s1', 't1', 'cal', 'https://x', '{}', 'u')",
    );
    await migrate(drizzle(db), { migrationsFolder: MIGRATIONS_DIR });
    expect((await db.query("select id from mcp_servers")).rows).toEqual([{ id: "s1" }]);
  }, 60_000);
});
