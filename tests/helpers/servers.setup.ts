/**
 * Starts the servers a protocol or e2e project runs against: the embedded default (PGlite, demo
 * seed) always, and — for protocol tests — one on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { TestProject } from "vitest/node";
import { createPostgresDatabase } from "./postgres";
import { startServer, type RunningServer } from "./server";

export interface ServerInfo {
  name: "pglite" | "postgres";
  url: string;
  logFile: string;
  /** The server's data folder (its embedded database, when it runs on one). */
  dataDir: string;
}

export default async function setup(project: TestProject) {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("Run `next build` before the protocol and e2e tests.");
  const chunkMs = project.name === "e2e" ? "15" : "1";
  // Research long enough for the e2e to watch its progress bar, short enough for protocol tests.
  const researchMs = project.name === "e2e" ? "2500" : "600";
  const started: RunningServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const servers: ServerInfo[] = [];
  // Webhook tests deliver to a receiver on 127.0.0.1.
  const local = { HARBOR_WEBHOOKS_ALLOW_LOCAL: "1" };
  const embedded = await startServer(
    { HARBOR_STREAM_CHUNK_MS: chunkMs, HARBOR_RESEARCH_MS: researchMs, ...local },
    `${project.name}-pglite`,
  );
  started.push(embedded);
  servers.push({ name: "pglite", url: embedded.url, logFile: embedded.logFile, dataDir: embedded.dataDir });

  const baseUrl = process.env.TEST_DATABASE_URL;
  if (baseUrl && project.name === "protocol") {
    const database = await createPostgresDatabase(baseUrl);
    cleanups.push(database.drop);
    const onPostgres = await startServer(
      {
        DATABASE_URL: database.url,
        HARBOR_SEED_DEMO: "1",
        AUTH_SECRET: randomBytes(32).toString("base64url"),
        HARBOR_STREAM_CHUNK_MS: chunkMs,
        HARBOR_RESEARCH_MS: researchMs,
        ...local,
      },
      `${project.name}-postgres`,
    );
    started.push(onPostgres);
    servers.push({ name: "postgres", url: onPostgres.url, logFile: onPostgres.logFile, dataDir: onPostgres.dataDir });
  }
  project.provide("servers", servers);
  return async () => {
    for (const s of started) await s.stop();
    for (const c of cleanups) await c();
    for (const s of started) fs.rmSync(s.dataDir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    servers: ServerInfo[];
  }
}
