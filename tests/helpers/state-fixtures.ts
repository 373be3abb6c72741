/**
 * Stored state as a release wrote it (tests/fixtures/state/<release>/): every row of every table,
 * captured from a database the release left work waiting in (`captureState`, run by the upgrade
 * test with HARBOR_CAPTURE_STATE=1), and loaded into a fresh database of either engine the way an
 * upgrade meets it (`loadState`): migrated only as far as that release, the rows put back as they
 * were, then migrated the rest of the way by the current code. Times move forward by the age of
 * the capture, so a deadline still lies as far ahead as it did.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { MIGRATIONS_DIR, openDatabase, type DatabaseHandle } from "@/server/db/client";
import { createPostgresDatabase } from "./postgres";

export const FIXTURES_DIR = path.resolve(__dirname, "../fixtures/state");

export interface StateMeta {
  release: string;
  /** How many migrations that release had applied. */
  migrations: number;
  capturedAt: string;
  /** The AUTH_SECRET it ran with: sealed values, tokens and links are keyed with it. */
  authSecret: string;
}

interface Sql {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Tables in the order their rows can be inserted (referenced tables first). */
async function tablesInOrder(db: Sql): Promise<string[]> {
  const { rows: tables } = await db.query(`select tablename as name from pg_tables where schemaname = 'public' order by tablename`);
  const { rows: edges } = await db.query(`
    select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where c.contype = 'f' and n.nspname = 'public'`);
  const names = tables.map((t) => String(t.name).replace(/^"|"$/g, ""));
  const parents = new Map(names.map((n) => [n, new Set<string>()]));
  for (const e of edges) {
    const child = String(e.child).replace(/^"|"$/g, "");
    const parent = String(e.parent).replace(/^"|"$/g, "");
    if (child !== parent) parents.get(child)?.add(parent);
  }
  const ordered: string[] = [];
  const visit = (name: string, seen: Set<string>) => {
    if (ordered.includes(name) || seen.has(name)) return;
    seen.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent, seen);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

const UNCAPTURED = new Set(["sessions", "sign_in_failures", "api_tokens"]);

/** Writes every row of the database at `url` to `tests/fixtures/state/<release>/`, with what the scenario left (`left`). */
export async function captureState(url: string, meta: Omit<StateMeta, "migrations" | "capturedAt">, left: unknown): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const dir = path.join(FIXTURES_DIR, meta.release);
    fs.mkdirSync(dir, { recursive: true });
    const rows: Record<string, unknown[]> = {};
    for (const table of await tablesInOrder(client)) {
      // Sign-in state is no waiting work, and credentials of any kind stay out of the repository.
      if (UNCAPTURED.has(table)) {
        rows[table] = [];
        continue;
      }
      const { rows: result } = await client.query(`select coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb) as rows from "${table}" t`);
      rows[table] = result[0]!.rows as unknown[];
    }
    const { rows: applied } = await client.query(`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const full: StateMeta = { ...meta, migrations: Number(applied[0]!.n), capturedAt: new Date().toISOString() };
    fs.writeFileSync(path.join(dir, "meta.json"), `${JSON.stringify(full, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, "rows.json"), `${JSON.stringify(rows, null, 1)}\n`);
    fs.writeFileSync(path.join(dir, "left.json"), `${JSON.stringify(left, null, 2)}\n`);
    return dir;
  } finally {
    await client.end();
  }
}

export function readStateMeta(release: string): StateMeta {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, release, "meta.json"), "utf8")) as StateMeta;
}

export function readLeft<T>(release: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, release, "left.json"), "utf8")) as T;
}

/** A migrations folder holding only the first `count` migrations, as that release had them. */
function migrationsUpTo(count: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-migrations-"));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const entries = journal.entries.slice(0, count);
  fs.mkdirSync(path.join(dir, "meta"));
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) fs.copyFileSync(path.join(MIGRATIONS_DIR, `${tag}.sql`), path.join(dir, `${tag}.sql`));
  return dir;
}

/** Puts the rows back as they were (no triggers: they already ran when the rows were written), times moved forward. */
async function putBack(db: Sql, release: string, meta: StateMeta): Promise<void> {
  const rows = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, release, "rows.json"), "utf8")) as Record<string, unknown[]>;
  const shiftMs = Date.now() - Date.parse(meta.capturedAt);
  await db.query(`set session_replication_role = replica`);
  for (const [table, values] of Object.entries(rows)) {
    if (table === "__drizzle_migrations" || values.length === 0) continue;
    await db.query(`insert into "${table}" overriding system value select * from jsonb_populate_recordset(null::"${table}", $1::jsonb)`, [
      JSON.stringify(values),
    ]);
    // The audit chain hashes its times: its rows keep theirs.
    if (table === "audit_log") continue;
    const { rows: columns } = await db.query(
      `select column_name as name from information_schema.columns
       where table_schema = 'public' and table_name = $1 and data_type = 'timestamp with time zone'`,
      [table],
    );
    for (const { name } of columns) {
      await db.query(`update "${table}" set "${String(name)}" = "${String(name)}" + $1 * interval '1 millisecond'`, [shiftMs]);
    }
  }
  await db.query(`set session_replication_role = origin`);
  // Numbering goes on after the rows put back.
  const { rows: counters } = await db.query(`
    select table_name as t, column_name as c from information_schema.columns
    where table_schema = 'public' and (is_identity = 'YES' or column_default like 'nextval(%')`);
  for (const { t, c } of counters) {
    await db.query(
      `select setval(pg_get_serial_sequence('"${String(t)}"', '${String(c)}'), coalesce((select max("${String(c)}") from "${String(t)}"), 0) + 1, false)`,
    );
  }
}

/** A fresh database of `engine` holding what `release` left, migrated by the current code. */
export async function loadState(engine: "pglite" | "postgres", release: string): Promise<DatabaseHandle> {
  const meta = readStateMeta(release);
  const migrationsFolder = migrationsUpTo(meta.migrations);
  try {
    if (engine === "postgres") {
      const created = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
      const client = new pg.Client({ connectionString: created.url });
      await client.connect();
      try {
        await migratePg(drizzlePg(client), { migrationsFolder });
        await putBack(client, release, meta);
      } finally {
        await client.end();
      }
      const handle = await openDatabase({ engine: "postgres", url: created.url, poolSize: 5 });
      return {
        ...handle,
        async close() {
          await handle.close();
          await created.drop();
        },
      };
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-state-"));
    const client = await PGlite.create({ dataDir: path.join(dataDir, "pglite") });
    try {
      await migratePglite(drizzlePglite(client), { migrationsFolder });
      await putBack(client, release, meta);
    } finally {
      await client.close();
    }
    const handle = await openDatabase({ engine: "pglite", dataDir });
    return {
      ...handle,
      async close() {
        await handle.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } finally {
    fs.rmSync(migrationsFolder, { recursive: true, force: true });
  }
}
