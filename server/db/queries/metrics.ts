/** What `/api/metrics` reads from the database at scrape time: the same for every instance (cluster-wide). */
import { count, eq } from "drizzle-orm";
import type { Executor } from "../client";
import { interactions, runs } from "../schema";

/** How many runs each agent has in each status. */
export async function runCountsByStatus(db: Executor): Promise<{ agentId: string; status: string; n: number }[]> {
  return db.select({ agentId: runs.agentId, status: runs.status, n: count() }).from(runs).groupBy(runs.agentId, runs.status);
}

/** How many pauses of each kind wait for an answer. */
export async function openPausesByKind(db: Executor): Promise<{ kind: string; n: number }[]> {
  return db
    .select({ kind: interactions.kind, n: count() })
    .from(interactions)
    .where(eq(interactions.status, "pending"))
    .groupBy(interactions.kind);
}
