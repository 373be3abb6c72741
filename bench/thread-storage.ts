/**
 * Bytes stored per turn of a long thread, in the two shapes a run's snapshot can take: naming the
 * thread's last message (what Harbor stores) and copying the whole transcript (what it stored before).
 * Both come from one run: the copies are what reading the log rebuilds, measured as the old shape
 * would have stored them.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../server/db";
import { listRunEvents } from "../server/db/queries/runs";
import type { Identity } from "../server/runtime";
import { drain, started, testRuntime } from "../tests/helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };

export interface ThreadStorage {
  turns: number;
  /** Bytes of messages and events per turn, over the whole thread. */
  referenced: number;
  copied: number;
  /** Bytes the last ten turns added, per turn: flat when storage is linear in the thread's length. */
  referencedLastTen: number;
  copiedLastTen: number;
}

interface Sizes {
  referenced: number;
  copied: number;
}

export async function measureThreadStorage(db: Database, turns: number): Promise<ThreadStorage> {
  const runtime = testRuntime(db);
  const threadId = `storage-${turns}-${Date.now()}`;
  const runIds: string[] = [];
  const perTurn: Sizes[] = [];
  try {
    for (let i = 0; i < turns; i++) {
      // A realistic question of a couple of hundred characters; the concierge answers it.
      const content = `hello — turn ${i}: ${"a question with some detail in it ".repeat(6)}`;
      const run = started(
        await runtime.startRun(alice, {
          agentId: "concierge",
          threadId,
          transportRunId: `t-${i}`,
          messages: [{ id: `m-${i}`, role: "user", content }],
        }),
      );
      await drain(run.events);
      runIds.push(run.runId);
      perTurn.push(await sizesOf(db, run.runId, threadId, i === 0));
    }
  } finally {
    runtime.close();
    await runtime.idle();
  }
  const sum = (sizes: readonly Sizes[], key: keyof Sizes) => sizes.reduce((total, s) => total + s[key], 0);
  const lastTen = perTurn.slice(-10);
  return {
    turns,
    referenced: sum(perTurn, "referenced") / turns,
    copied: sum(perTurn, "copied") / turns,
    referencedLastTen: sum(lastTen, "referenced") / lastTen.length,
    copiedLastTen: sum(lastTen, "copied") / lastTen.length,
  };
}

/** What one turn stored: its run's events (as stored, and with snapshots copied) and its new messages. */
async function sizesOf(db: Database, runId: string, threadId: string, first: boolean): Promise<Sizes> {
  const result = await db.execute(sql`
    select
      (select coalesce(sum(octet_length(data::text)), 0) from run_events where run_id = ${runId}) as events,
      (select coalesce(sum(octet_length(content) + coalesce(octet_length(tool_calls::text), 0)), 0)
        from messages where run_id = ${runId} or (${first} and thread_id = ${threadId} and run_id is null)) as messages`);
  const [row] = (result as unknown as { rows: { events: number | string; messages: number | string }[] }).rows;
  const rebuilt = (await listRunEvents(db, runId)).reduce((total, e) => total + Buffer.byteLength(JSON.stringify(e.data)), 0);
  const messages = Number(row?.messages ?? 0);
  return { referenced: Number(row?.events ?? 0) + messages, copied: rebuilt + messages };
}
