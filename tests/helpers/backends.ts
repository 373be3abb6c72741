/**
 * The database engines every integration suite runs on: embedded PGlite always, PostgreSQL when
 * TEST_DATABASE_URL is set. Each open gives a fresh, migrated, empty database.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import type { SQL } from "drizzle-orm";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";

export interface TestBackend {
  name: "pglite" | "postgres";
  open(): Promise<DatabaseHandle>;
}

const pglite: TestBackend = {
  name: "pglite",
  async open() {
    const template = await fs.readFile(inject("pgliteTemplate"));
    return openDatabase({ engine: "pglite", loadDataDir: new Blob([template], { type: "application/x-gzip" }) });
  },
};

/** A database URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates an empty PostgreSQL database next to TEST_DATABASE_URL's; returns its URL and a dropper. */
export async function createPostgresDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `harbor_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: withDatabase(baseUrl, name),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

function postgres(baseUrl: string): TestBackend {
  return {
    name: "postgres",
    async open() {
      const created = await createPostgresDatabase(baseUrl);
      const handle = await openDatabase({ engine: "postgres", url: created.url, poolSize: 5 });
      return {
        ...handle,
        async close() {
          await handle.close();
          await created.drop();
        },
      };
    },
  };
}

export function testBackends(): TestBackend[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [pglite, postgres(url)] : [pglite];
}

/** Rows of a raw SQL query; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: DatabaseHandle["db"], query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}
