/**
 * Opens Harbor's database: embedded PGlite in a folder (default) or PostgreSQL through `pg`.
 * Both get the same Drizzle schema and the same migrations.
 */
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "./schema";
import { log } from "@/server/log";
import { acquireDataDirLock } from "./lockfile";
import { ThreadedPglite, type ThreadState } from "./pglite-worker";
import { PLAN_CACHE_MODE, usePreparedStatements } from "./pglite-prepared.mjs";
import { namePreparedStatements } from "./pg-prepared";
import { timePostgresStatements } from "./statement-timing";

/** PGlite on its own thread, typed as the PGlite Drizzle drives (it answers the calls Drizzle makes). */
async function startThreaded(options: {
  dataDir?: string;
  loadDataDir?: Blob;
  prepared: boolean;
  onePlan: boolean;
}): Promise<ThreadedPglite> {
  const threaded = new ThreadedPglite(options);
  await threaded.ready;
  return threaded;
}

/** The threaded client, typed as the PGlite Drizzle drives (it answers the calls Drizzle makes). */
const asPglite = (client: ThreadedPglite | PGlite): PGlite => client as unknown as PGlite;

export type Schema = typeof schema;
/** The driver-independent Drizzle database both engines implement. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** A database or an open transaction on it: queries accept either. */
export type Executor = Parameters<Parameters<Database["transaction"]>[0]>[0] | Database;

export interface DatabaseHandle {
  readonly db: Database;
  readonly engine: "pglite" | "postgres";
  /** PostgreSQL's connection string (for a dedicated listening connection). */
  readonly url?: string;
  /** PostgreSQL's connection pool, for libraries that speak `pg` themselves (the sign-in throttle's store). */
  readonly pool?: pg.Pool;
  /** Whether the engine can answer: the embedded database's thread is up (PostgreSQL: the pool is open). */
  engineState(): ThreadState;
  close(): Promise<void>;
}

/** `onePlan: false` lets PostgreSQL re-plan a prepared statement as it chooses (kept for comparison; see pglite-prepared.mjs). */
type Planning = { prepared?: boolean; onePlan?: boolean };

export type OpenOptions = (
  | /** `applicationName` names the connections (Harbor's are `harbor:<instance id>`: their changes notify the others). */
    /** `prepared: false` sends every statement unnamed, planned anew (kept for comparison). */
    ({ engine: "postgres"; url: string; poolSize?: number; applicationName?: string } & Planning)
    /**
     * `dataDir` undefined = in memory (tests); `loadDataDir` starts from a dumped template; `thread`
     * runs PGlite on a worker thread of its own; `prepared: false` plans every statement anew
     * (PGlite's own `query`, kept for comparison).
     */
  | ({ engine: "pglite"; dataDir?: string; loadDataDir?: Blob; thread?: boolean } & Planning)
) & {
  /** Told every statement the handle sends (the statement budget's counter; never its parameters). */
  onStatement?: (sql: string) => void;
};

/** Drizzle's logger, as a statement counter. */
const statementLogger = (onStatement?: (sql: string) => void) =>
  onStatement ? { logger: { logQuery: (query: string) => onStatement(query) } } : {};

export const MIGRATIONS_DIR = path.join(process.cwd(), "server/db/migrations");

/** An arbitrary constant: serialises migrations when several Harbor processes start at once. */
const MIGRATION_LOCK_KEY = 7_240_118;

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  return options.engine === "postgres" ? openPostgres(options) : openPglite(options);
}

async function openPostgres(options: Extract<OpenOptions, { engine: "postgres" }>): Promise<DatabaseHandle> {
  const { url, poolSize = 20, applicationName, onStatement, prepared = true, onePlan = true } = options;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(applicationName ? { application_name: applicationName } : {}),
    // Named statements keep one plan each (why: pglite-prepared.mjs).
    ...(prepared && onePlan ? { options: `-c plan_cache_mode=${PLAN_CACHE_MODE}` } : {}),
  });
  // An idle connection that breaks (a database restart) must not crash the process: the pool
  // replaces it, and the queries that need it report their own errors.
  pool.on("error", (error) => log.warn({ err: error }, "idle PostgreSQL connection failed"));
  try {
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  if (prepared) namePreparedStatements(pool);
  timePostgresStatements(pool);
  let ended = false;
  return {
    db: drizzlePg(pool, { schema, ...statementLogger(onStatement) }),
    engine: "postgres",
    url,
    pool,
    // Whether PostgreSQL answers is the readiness probe's to find out: the pool reconnects by itself.
    engineState: () => (ended ? "dead" : "up"),
    close: () => {
      ended = true;
      return pool.end();
    },
  };
}

async function openPglite(options: Extract<OpenOptions, { engine: "pglite" }>): Promise<DatabaseHandle> {
  const { prepared = true, onePlan = true } = options;
  const release = options.dataDir ? acquireDataDirLock(options.dataDir) : () => {};
  try {
    const pgDir = options.dataDir ? path.join(options.dataDir, "pglite") : undefined;
    const threaded = options.thread
      ? await startThreaded({ dataDir: pgDir, loadDataDir: options.loadDataDir, prepared, onePlan })
      : undefined;
    const client = threaded ? asPglite(threaded) : await PGlite.create({ dataDir: pgDir, loadDataDir: options.loadDataDir });
    if (!threaded && prepared) usePreparedStatements(client, onePlan);
    try {
      await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
    } catch (error) {
      await client.close();
      throw error;
    }
    return {
      db: drizzlePglite(client, { schema, ...statementLogger(options.onStatement) }),
      engine: "pglite",
      engineState: () => (threaded ? threaded.state() : client.closed ? "dead" : "up"),
      close: async () => {
        await client.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
