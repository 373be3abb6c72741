/**
 * A server of the test file's own, for tests that load a server hard (fuzzing, load, memory) and must
 * neither disturb nor be disturbed by the shared servers of the other protocol files: embedded
 * PGlite always, PostgreSQL (a fresh database next to TEST_DATABASE_URL's) when it is set.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createPostgresDatabase } from "./postgres";
import { startServer, type RunningServer } from "./server";

export type Engine = "pglite" | "postgres";

export const OWN_ENGINES: { name: Engine }[] = process.env.TEST_DATABASE_URL
  ? [{ name: "pglite" }, { name: "postgres" }]
  : [{ name: "pglite" }];

export interface OwnServer extends RunningServer {
  engine: Engine;
  /** The PostgreSQL database's URL (PostgreSQL only). */
  databaseUrl?: string;
  /** Stops the server and removes its data folder and database. */
  dispose(): Promise<void>;
}

/** A fresh, empty database for `engine` before its server starts: a data folder, or a PostgreSQL database. */
export interface Prepared {
  env: Record<string, string>;
  dataDir?: string;
  databaseUrl?: string;
  drop(): Promise<void>;
}

export async function prepareDatabase(engine: Engine, dataDir?: string, postgresUrl = process.env.TEST_DATABASE_URL): Promise<Prepared> {
  if (engine === "pglite") {
    return { env: dataDir ? { HARBOR_DATA_DIR: dataDir } : {}, dataDir, drop: async () => undefined };
  }
  if (!postgresUrl) throw new Error("PostgreSQL needs TEST_DATABASE_URL");
  const database = await createPostgresDatabase(postgresUrl);
  return {
    env: { DATABASE_URL: database.url, HARBOR_SEED_DEMO: "1", AUTH_SECRET: randomBytes(32).toString("base64url") },
    databaseUrl: database.url,
    drop: database.drop,
  };
}

/** Starts a server on `engine` (on `prepared` when given), with `env` on top of the protocol defaults. */
export async function startOwnServer(
  engine: Engine,
  label: string,
  env: Record<string, string> = {},
  prepared?: Prepared,
): Promise<OwnServer> {
  const database = prepared ?? (await prepareDatabase(engine));
  let server: RunningServer;
  try {
    server = await startServer({ HARBOR_STREAM_CHUNK_MS: "0", HARBOR_RESEARCH_MS: "600", ...database.env, ...env }, `${label}-${engine}`);
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    ...server,
    engine,
    databaseUrl: database.databaseUrl,
    async dispose() {
      await server.stop();
      fs.rmSync(server.dataDir, { recursive: true, force: true });
      if (database.dataDir) fs.rmSync(database.dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}
