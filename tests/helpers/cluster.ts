/**
 * Several real `next start` instances on one fresh PostgreSQL database (the CI's, next to
 * TEST_DATABASE_URL), sharing their secret, with short heartbeats so that a killed one is found dead
 * quickly. Each test file gets its own database.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createPostgresDatabase } from "./postgres";
import { startServer, type RunningServer } from "./server";

export const HEARTBEAT_MS = 200;
export const TTL_MS = 1_500;

export interface Cluster {
  databaseUrl: string;
  instances: RunningServer[];
  /** Starts one more instance on the same database. */
  add(label: string, env?: Record<string, string>): Promise<RunningServer>;
  stop(): Promise<void>;
}

export async function startCluster(size: number, env: Record<string, string> = {}): Promise<Cluster> {
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) throw new Error("the cluster tests need TEST_DATABASE_URL");
  const database = await createPostgresDatabase(baseUrl);
  const shared = {
    DATABASE_URL: database.url,
    HARBOR_SEED_DEMO: "1",
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    HARBOR_STREAM_CHUNK_MS: "0",
    HARBOR_STEP_MS: "150",
    HARBOR_INSTANCE_HEARTBEAT_MS: String(HEARTBEAT_MS),
    HARBOR_INSTANCE_TTL_MS: String(TTL_MS),
    ...env,
  };
  const instances: RunningServer[] = [];
  const add = async (label: string, extra: Record<string, string> = {}) => {
    const server = await startServer({ ...shared, ...extra }, `cluster-${label}`);
    instances.push(server);
    return server;
  };
  // One at a time: the first migrates and seeds, the rest find it done.
  for (let i = 0; i < size; i++) await add(String.fromCharCode(97 + i));
  return {
    databaseUrl: database.url,
    instances,
    add,
    async stop() {
      for (const server of instances) await server.stop();
      for (const server of instances) fs.rmSync(server.dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}

export const hasPostgres = Boolean(process.env.TEST_DATABASE_URL);
