/**
 * What a conversation's shared state costs to keep. A client that holds a large state and sends a
 * short message each turn stores that state once (per thread and content), not with every run's
 * snapshot; reading the log gives each snapshot its state back; a state over HARBOR_MAX_STATE_BYTES
 * is refused before anything is stored.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRunEvents } from "@/server/db/queries/runs";
import { measureTenantStorage } from "@/server/db/queries/storage";
import type { Identity, Runtime, StartRunRequest } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { drain, started, testRuntime } from "../../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const MAX_STATE = 900_000;

const turn = (threadId: string, text: string, state?: Record<string, unknown>): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: randomUUID(),
  messages: [{ id: randomUUID(), role: "user", content: text }],
  ...(state ? { state } : {}),
});

describe.each(testBackends())("the shared state's storage on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;

  beforeAll(async () => {
    runtime = testRuntime(database.db, { maxStateBytes: MAX_STATE });
    await runtime.start();
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  const storedBytes = async (threadId: string) =>
    (
      await queryRows<{ events: number; states: number }>(
        database.db,
        sql`select
          (select coalesce(sum(pg_column_size(e.data)), 0)::int from run_events e join runs r on r.id = e.run_id where r.thread_id = ${threadId}) as events,
          (select coalesce(sum(pg_column_size(s.state)), 0)::int from snapshot_states s where s.thread_id = ${threadId}) as states`,
      )
    )[0]!;

  it("keeps an 800 KB state once however many short turns carry it, and gives every snapshot its state back", async () => {
    const threadId = `state-${randomUUID()}`;
    // Varied text, so compression does not hide what a copy costs.
    const state = { notes: Array.from({ length: 8_000 }, (_, i) => `${i}:${randomUUID()}`).join(" ") };
    expect(JSON.stringify(state).length).toBeGreaterThan(300_000);
    const runIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const run = started(await runtime.startRun(alice, turn(threadId, `hello ${i}`, state)));
      await drain(run.events);
      runIds.push(run.runId);
    }
    const bytes = await storedBytes(threadId);
    const oneCopy = JSON.stringify(state).length;
    // One copy of the state, and the events' own few kilobytes: not six copies.
    expect(bytes.states).toBeLessThan(oneCopy * 1.1);
    expect(bytes.events).toBeLessThan(oneCopy / 4);
    for (const runId of runIds) {
      const snapshot = (await listRunEvents(database.db, runId)).map((e) => e.data).find((e) => e.type === "snapshot");
      expect(snapshot?.type === "snapshot" && snapshot.state).toEqual(state);
    }
  });

  it("keeps small states in the event, and a changed large state as a copy of its own", async () => {
    const threadId = `state-${randomUUID()}`;
    const small = { theme: "dark" };
    const first = started(await runtime.startRun(alice, turn(threadId, "hi", small)));
    await drain(first.events);
    const big = (n: number) => ({ rows: Array.from({ length: 200 }, (_, i) => `${n}-${i}-${randomUUID()}`) });
    for (const n of [1, 2]) {
      const run = started(await runtime.startRun(alice, turn(threadId, "more", big(n))));
      await drain(run.events);
    }
    const [{ n }] = (await queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from snapshot_states where thread_id = ${threadId}`,
    )) as [{ n: number }];
    expect(n).toBe(2);
    const snapshot = (await listRunEvents(database.db, first.runId)).map((e) => e.data).find((e) => e.type === "snapshot");
    expect(snapshot?.type === "snapshot" && snapshot.state).toEqual(small);
  });

  it("refuses a state over the bound with INVALID_INPUT naming `state`, and stores nothing", async () => {
    const threadId = `state-${randomUUID()}`;
    const tooBig = { blob: "x".repeat(MAX_STATE) };
    await expect(runtime.startRun(alice, turn(threadId, "hello", tooBig))).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "state" },
    });
    const [{ n }] = (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from threads where id = ${threadId}`)) as [
      { n: number },
    ];
    expect(n).toBe(0);
  });
});

describe.each(testBackends())("a tenant's storage quota on $name", (backend) => {
  const database = useSeededDatabase(backend);
  const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

  it("refuses a tenant's new runs with QUOTA_EXCEEDED once its measured storage passes the quota, and no other tenant's", async () => {
    const runtime = testRuntime(database.db, { maxTenantStorageBytes: 200_000, storageMeasureMs: 60_000 });
    await runtime.start();
    try {
      const threadId = `quota-${randomUUID()}`;
      const state = { rows: Array.from({ length: 4_000 }, () => randomUUID()) };
      await drain(started(await runtime.startRun(alice, turn(threadId, "hello", state))).events);
      // Not measured again yet: the quota acts on the last measure.
      await drain(started(await runtime.startRun(alice, turn(threadId, "still"))).events);
      await measureTenantStorage(database.db, 0);

      const refusal = await runtime.startRun(alice, turn(`quota-${randomUUID()}`, "a new conversation"));
      expect("refused" in refusal && refusal.refused).toMatchObject({
        code: "QUOTA_EXCEEDED",
        details: { quota: "storage", limit: 200_000 },
      });
      expect("refused" in refusal && refusal.refused.message).toMatch(/more than its quota of 1 MB/);
      // What is stored stays readable, and another tenant goes on.
      expect(
        (
          await listRunEvents(
            database.db,
            (await queryRows<{ id: string }>(database.db, sql`select id from runs where thread_id = ${threadId} limit 1`))[0]!.id,
          )
        ).length,
      ).toBeGreaterThan(0);
      await drain(started(await runtime.startRun(mallory, turn(`quota-${randomUUID()}`, "hello"))).events);
    } finally {
      runtime.close();
      await runtime.idle();
    }
  });
});
