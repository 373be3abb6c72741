/**
 * Creating a PGlite database runs initdb (several seconds). We do it once, migrate it, dump it,
 * and every integration suite loads the dump (about a second).
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "harbor-template-"));
  const file = path.join(dir, "template.tar.gz");
  const client = await PGlite.create();
  await migrate(drizzle(client), { migrationsFolder: path.resolve("server/db/migrations") });
  const dump = await client.dumpDataDir("gzip");
  await fs.writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await client.close();
  project.provide("pgliteTemplate", file);
  return async () => {
    await fs.rm(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
