/**
 * The serving process's database: opened once, migrated, seeded when configured.
 * Kept on `globalThis` because Next.js may load this module once per route bundle,
 * and the embedded database must have exactly one opener per process.
 */
import "server-only";
import path from "node:path";
import { settings } from "@/server/config";
import { instanceId } from "@/server/instance-id";
import { log } from "@/server/log";
import { openDatabase, type Database, type DatabaseHandle } from "./client";
import { seedDemo } from "./seed";

const KEY = Symbol.for("harbor.database");
type Holder = { [KEY]?: Promise<DatabaseHandle> };

async function openConfigured(): Promise<DatabaseHandle> {
  const s = settings();
  const started = Date.now();
  const handle = s.databaseUrl
    ? await openDatabase({ engine: "postgres", url: s.databaseUrl, applicationName: `harbor:${instanceId()}`, prepared: s.pgPrepared })
    : await openDatabase({ engine: "pglite", dataDir: s.dataDir, thread: s.pgliteThread, prepared: s.pglitePrepared });
  if (s.seedDemo) {
    try {
      await seedDemo(handle.db);
    } catch (error) {
      // Release the database so that the next attempt can open it again.
      await handle.close();
      throw error;
    }
  }
  log.info(
    {
      engine: handle.engine,
      dataDir: handle.engine === "pglite" ? path.relative(process.cwd(), s.dataDir) : undefined,
      ms: Date.now() - started,
    },
    "database ready",
  );
  return handle;
}

/** The process-wide database handle. A failed open is not cached: the next call tries again. */
export function databaseHandle(): Promise<DatabaseHandle> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const opening = openConfigured();
    holder[KEY] = opening;
    opening.catch((error: unknown) => {
      log.error({ err: error }, "database open failed");
      if (holder[KEY] === opening) delete holder[KEY];
    });
  }
  return holder[KEY];
}

export async function database(): Promise<Database> {
  return (await databaseHandle()).db;
}

export type { Database, DatabaseHandle, Executor } from "./client";
