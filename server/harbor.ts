/**
 * The composition root of the serving process: database, agents and runtime, wired once.
 * Kept on `globalThis` because Next.js may evaluate this module once per route bundle.
 */
import { createAgents } from "@/server/agents";
import { outboxService } from "@/server/agents/concierge/outbox";
import { authSecret } from "@/server/auth/secret";
import { settings } from "@/server/config";
import { database, databaseHandle, type Database } from "@/server/db";
import { log } from "@/server/log";
import { createRuntime, type Runtime } from "@/server/runtime";

export interface Harbor {
  db: Database;
  runtime: Runtime;
  outbox: ReturnType<typeof outboxService>;
}

const KEY = Symbol.for("harbor.instance");
type Holder = { [KEY]?: Promise<Harbor> };

async function boot(): Promise<Harbor> {
  const db = await database();
  const runtime = createRuntime({
    db,
    agents: createAgents(db, authSecret(), { researchMs: settings().researchMs, stepMs: settings().stepMs }),
    log,
    streamChunkMs: settings().streamChunkMs,
    approvalTtlMs: settings().approvalTtlMs,
    jobLeaseMs: settings().jobLeaseMs,
    maxActiveRuns: settings().maxActiveRuns,
    serverSecret: authSecret(),
  });
  // What an earlier process held cannot be answered any more: say so before serving anyone.
  await runtime.recover();
  return { db, runtime, outbox: outboxService(db) };
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

/**
 * Stops the serving process cleanly: lets runs in flight finish (up to `graceMs`), then closes the
 * database — which, for the embedded one, also releases its folder's lock.
 */
export async function shutdown(graceMs = 5_000): Promise<void> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) return;
  const { runtime } = await holder[KEY];
  const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
  runtime.close();
  await Promise.race([runtime.idle(), grace]);
  await (await databaseHandle()).close();
}
