/**
 * The database engines every integration suite runs on: embedded PGlite always, PostgreSQL when
 * TEST_DATABASE_URL is set. Each open gives a fresh, migrated, empty database.
 */
import fs from "node:fs/promises";
import type { SQL } from "drizzle-orm";
import { afterAll, beforeAll, inject } from "vitest";
import { openDatabase, type DatabaseHandle, type OpenOptions } from "@/server/db/client";
import { seedDemo } from "@/server/db/seed";
import { createPostgresDatabase } from "./postgres";

/** What a test may add to the handle: a statement counter. */
export type OpenExtras = Pick<OpenOptions, "onStatement">;

export interface TestBackend {
  name: "pglite" | "postgres";
  open(extras?: OpenExtras): Promise<DatabaseHandle>;
}

const pglite: TestBackend = {
  name: "pglite",
  async open(extras) {
    const template = await fs.readFile(inject("pgliteTemplate"));
    return openDatabase({ engine: "pglite", loadDataDir: new Blob([template], { type: "application/x-gzip" }), ...extras });
  },
};

function postgres(baseUrl: string): TestBackend {
  return {
    name: "postgres",
    async open(extras) {
      const created = await createPostgresDatabase(baseUrl);
      const handle = await openDatabase({ engine: "postgres", url: created.url, poolSize: 5, ...extras });
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

/**
 * PostgreSQL alone, for what only it can show (two statements at once), or undefined without
 * TEST_DATABASE_URL. Use it with `describe.skipIf(!backend)`, never `describe.each` of a list that
 * may be empty: a file whose every suite comes from an empty list registers nothing, and vitest
 * fails it as "No test suite found" on a machine without PostgreSQL.
 */
export function postgresBackend(): TestBackend | undefined {
  const url = process.env.TEST_DATABASE_URL;
  return url ? postgres(url) : undefined;
}

/** The backend a suite guarded by `describe.skipIf(!backend)` runs on. */
export function required(backend: TestBackend | undefined): TestBackend {
  return (
    backend ?? {
      name: "postgres",
      open: () => Promise.reject(new Error("this suite needs TEST_DATABASE_URL and should have been skipped")),
    }
  );
}

/** Rows of a raw SQL query; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: DatabaseHandle["db"], query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * A fresh, migrated and seeded database for the enclosing describe block: open before its tests,
 * closed after. Read `.db` inside tests (it is set once `beforeAll` ran).
 */
export function useSeededDatabase(
  backend: TestBackend,
  extras?: OpenExtras,
): { readonly handle: DatabaseHandle; readonly db: DatabaseHandle["db"] } {
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    handle = await backend.open(extras);
    await seedDemo(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
  });
  const current = () => {
    if (!handle) throw new Error("the database is opened in beforeAll");
    return handle;
  };
  return {
    get handle() {
      return current();
    },
    get db() {
      return current().db;
    },
  };
}
