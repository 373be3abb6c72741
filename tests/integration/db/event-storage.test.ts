import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRunEvents, pageOfRunEvents } from "@/server/db/queries/runs";
import type { Identity, LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";
import { drain, started, testRuntime } from "../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };

let counter = 0;
const request = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `storage-${++counter}`,
  messages: text ? [{ id: `storage-m-${counter}`, role: "user", content: text }] : [],
  resume,
});

const snapshotsOf = (events: readonly LoggedEvent[]) => events.filter((e) => e.event.type === "snapshot");

describe.each(testBackends())("stored snapshots on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db);
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  it("name the thread's last message instead of copying the transcript, and read back exactly as they were sent", async () => {
    const live: LoggedEvent[] = [];
    const runIds: string[] = [];
    const turn = async (text?: string, resume?: StartRunRequest["resume"]) => {
      const run = started(await runtime.startRun(alice, request("storage-thread", text, resume)));
      runIds.push(run.runId);
      const events = await drain(run.events);
      live.push(...events);
      return events.at(-1)!.event;
    };
    await turn("hello");
    const parked = await turn("send an email to bob@example.com saying a long day");
    if (parked.type !== "run.paused") throw new Error("expected the email to wait for approval");
    // The owner cancels her own gate: the tool's answer and the reply join the transcript.
    await turn(undefined, [{ interactionId: parked.interrupts[0]!.id, status: "cancelled" }]);
    await turn("hello again");

    const stored = (await Promise.all([...new Set(runIds)].map((id) => listRunEvents(database.db, id)))).flat();
    const storedSnapshots = stored.filter((e) => e.type === "snapshot").map((e) => e.data);
    expect(storedSnapshots).toEqual(snapshotsOf(live).map((e) => e.event));
    expect(storedSnapshots.length).toBe(4);
    const last = storedSnapshots.at(-1);
    expect(last?.type === "snapshot" && last.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);

    const raw = await queryRows<{ data: Record<string, unknown> }>(
      database.db,
      sql`select e.data from run_events e join runs r on r.id = e.run_id where r.thread_id = 'storage-thread' and e.type = 'snapshot'`,
    );
    expect(raw).toHaveLength(4);
    for (const { data } of raw) {
      expect(data).not.toHaveProperty("messages");
      expect(data).toHaveProperty("through");
    }
  });

  it("reads a page from the middle of a log with its snapshot whole", async () => {
    const run = started(await runtime.startRun(alice, request("storage-page", "hello")));
    const events = await drain(run.events);
    const at = events.findIndex((e) => e.event.type === "snapshot");
    const [page] = await listRunEvents(database.db, run.runId, at, 1);
    expect(page?.data).toEqual(events[at]!.event);
  });

  it("reads a log in pages of unread events that, read, are the run's own events: snapshots whole, times as stored", async () => {
    const run = started(await runtime.startRun(alice, request("storage-unread", "hello")));
    const live = await drain(run.events);
    expect(live.some((e) => e.event.type === "snapshot")).toBe(true);
    const read = [];
    for (let after = 0; ;) {
      const page = await pageOfRunEvents(database.db, run.runId, after, 3);
      read.push(...page.map((unread) => unread()));
      if (page.length < 3) break;
      after = read.at(-1)!.seq;
    }
    expect(read.map((e) => ({ seq: e.seq, type: e.type, data: e.data }))).toEqual(
      live.map((e) => ({ seq: e.seq, type: e.event.type, data: e.event })),
    );
    // The driver's own reading of each row's time, to the millisecond.
    const stored = await queryRows<{ created_at: Date | string }>(
      database.db,
      sql`select created_at from run_events where run_id = ${run.runId} order by seq`,
    );
    expect(read.map((e) => e.createdAt.getTime())).toEqual(stored.map((r) => new Date(r.created_at).getTime()));
  });

  it("stores a large state by reference in snapshots only, calling the trigger for them alone (migration 0033)", async () => {
    const run = started(await runtime.startRun(alice, request("storage-when", "hello")));
    await drain(run.events);
    const big = { notes: "x".repeat(2048) };
    const [last] = await queryRows<{ seq: number }>(
      database.db,
      sql`select max(seq)::int as seq from run_events where run_id = ${run.runId}`,
    );
    const seq = last!.seq;
    await database.db.execute(sql`insert into run_events (run_id, seq, type, data) values
      (${run.runId}, ${seq + 1}, 'snapshot', ${JSON.stringify({ type: "snapshot", v: 1, state: big, through: null })}::jsonb),
      (${run.runId}, ${seq + 2}, 'custom', ${JSON.stringify({ type: "custom", v: 1, state: big })}::jsonb)`);
    const rows = await queryRows<{ type: string; data: Record<string, unknown> }>(
      database.db,
      sql`select type, data from run_events where run_id = ${run.runId} and seq > ${seq} order by seq`,
    );
    expect(rows[0]!.data).toHaveProperty("stateHash");
    expect(rows[0]!.data).not.toHaveProperty("state");
    expect(rows[1]!.data).toEqual({ type: "custom", v: 1, state: big });
    const triggers = await queryRows<{ name: string; def: string }>(
      database.db,
      sql`select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger
        where tgname in ('run_events_snapshot_state', 'run_events_notify', 'interactions_insert_notify', 'interactions_update_notify')`,
    );
    expect(triggers).toHaveLength(4);
    for (const { def } of triggers) expect(def).toContain(" WHEN ");
  });
});
