/**
 * The composition root of the serving process: database, agents and runtime, wired once.
 * Kept on `globalThis` because Next.js may evaluate this module once per route bundle.
 */
import { agents } from "@/server/agents";
import { settings } from "@/server/config";
import { database, type Database } from "@/server/db";
import { log } from "@/server/log";
import { createRuntime, type Runtime } from "@/server/runtime";

export interface Harbor {
  db: Database;
  runtime: Runtime;
}

const KEY = Symbol.for("harbor.instance");
type Holder = { [KEY]?: Promise<Harbor> };

async function boot(): Promise<Harbor> {
  const db = await database();
  const runtime = createRuntime({ db, agents, log, streamChunkMs: settings().streamChunkMs });
  return { db, runtime };
}

export function harbor(): Promise<Harbor> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const booting = boot();
    holder[KEY] = booting;
    booting.catch(() => {
      if (holder[KEY] === booting) delete holder[KEY];
    });
  }
  return holder[KEY];
}
