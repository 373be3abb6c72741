/**
 * Ending the runs of a lost instance (`failRunsOf`) while its writer may still be alive: the closing
 * events are numbered past anything it published or is still writing, and what it stored meanwhile
 * stays. The kill -9 case, with readers, is `tests/protocol/streaming-crash.test.ts`.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/server/domain";
import { failRunsOf, registerInstance } from "@/server/db/queries/instances";
import { appendRunEvents, beginRun } from "@/server/db/queries/run-writes";
import { listRunEvents } from "@/server/db/queries/runs";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

const AHEAD = 1_000;
const LOST = { code: "INSTANCE_LOST", message: "The instance stopped." } as const;

describe.each(testBackends())("runs of a lost instance ended on $name", (backend) => {
  const h = useSeededDatabase(backend);

  /** A running run on `instance`, its own thread, with `events` stored after its start. */
  async function running(runId: string, instance: string, events: RunEvent[] = []) {
    await registerInstance(h.db, instance);
    await beginRun(h.db, {
      thread: { id: runId, tenantId: "tenant-acme", ownerId: "user-alice", title: runId },
      messages: [{ id: `${runId}-m`, role: "user", content: "hello" }],
      run: { id: runId, agentId: "concierge", transportRunId: runId, instanceId: instance },
      events: [{ seq: 1, type: "run.started", data: { type: "run.started", runId, threadId: runId, agentId: "concierge" } }],
    });
    await h.db.execute(sql`update runs set status = 'running' where id = ${runId}`);
    await store(runId, 2, events);
  }

  const store = (runId: string, from: number, events: RunEvent[]) =>
    appendRunEvents(h.db, [{ runId, events: events.map((data, i) => ({ seq: from + i, type: data.type, data })) }]);

  it("numbers the failure past what the writer published unstored, so its writes still land below it", async () => {
    await running("lost-unstored", "i-lost-unstored");
    const written = await failRunsOf(h.db, ["i-lost-unstored"], LOST, { streamedAhead: AHEAD });
    expect(written).toEqual([
      expect.objectContaining({ runId: "lost-unstored", seq: 1 + AHEAD + 1, event: { type: "run.failed", ...LOST } }),
    ]);

    // The writer had published a message's start and text (seqs 2–4) and stores them now.
    await store("lost-unstored", 2, [
      { type: "text.started", messageId: "late" },
      { type: "text.delta", messageId: "late", delta: "Hel" },
      { type: "text.delta", messageId: "late", delta: "lo" },
    ]);
    const log = await listRunEvents(h.db, "lost-unstored");
    expect(log.map((e) => [e.seq, e.type])).toEqual([
      [1, "run.started"],
      [2, "text.started"],
      [3, "text.delta"],
      [4, "text.delta"],
      [1 + AHEAD + 1, "run.failed"],
    ]);
  });

  it("keeps an open message its writer stored meanwhile as written, and closes it past the writer's reach", async () => {
    await running("lost-open", "i-lost-open", [
      { type: "text.started", messageId: "open" },
      { type: "text.delta", messageId: "open", delta: "Hel" },
    ]);
    // The writer stored the whole message (with its end) after the reclaim read the log.
    await h.db.execute(
      sql`insert into messages (id, thread_id, run_id, role, content) values ('open', 'lost-open', 'lost-open', 'assistant', 'Hello')`,
    );

    const written = await failRunsOf(h.db, ["i-lost-open"], LOST, { streamedAhead: AHEAD });
    expect(written.map((w) => [w.seq, w.event.type])).toEqual([
      [3 + AHEAD + 1, "text.ended"],
      [3 + AHEAD + 2, "run.failed"],
    ]);
    const messages = await queryRows<{ id: string; role: string; content: string }>(
      h.db,
      sql`select id, role, content from messages where thread_id = 'lost-open' order by position`,
    );
    expect(messages).toEqual([
      { id: "lost-open-m", role: "user", content: "hello" },
      { id: "open", role: "assistant", content: "Hello" },
      { id: expect.any(String), role: "system", content: LOST.message },
    ]);
  });
});
