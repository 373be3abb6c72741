import type { RunEvent } from "@/server/domain";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { appendRunEvents, beginRun } from "@/server/db/queries/run-writes";
import { findRun, listRunEvents } from "@/server/db/queries/runs";
import { findThread, listMessages } from "@/server/db/queries/threads";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

/** A stored event row for `data`. */
const logged = (seq: number, data: RunEvent) => ({ seq, type: data.type, data });
const started = [logged(1, { type: "run.started", runId: "r", threadId: "t", agentId: "concierge" })];

function begin(
  h: { db: DatabaseHandle["db"] },
  threadId: string,
  runId: string,
  owner = { tenantId: "tenant-acme", ownerId: "user-alice" },
) {
  return beginRun(h.db, {
    thread: { id: threadId, ...owner, title: "t" },
    messages: [
      { id: `${runId}-a`, role: "user", content: "first" },
      { id: `${runId}-b`, role: "user", content: "second" },
    ],
    run: { id: runId, agentId: "concierge", transportRunId: "x", instanceId: "i-test" },
    events: started,
  });
}

describe.each(testBackends())("run writes on $name", (backend) => {
  const h = useSeededDatabase(backend);

  it("begins a run on a new thread: thread, ordered messages, run and first event in one statement", async () => {
    const thread = await begin(h, "t-new", "r-1");
    expect(thread).toMatchObject({ id: "t-new", ownerId: "user-alice", created: true });
    expect((await listMessages(h.db, "t-new")).map((m) => m.content)).toEqual(["first", "second"]);
    expect((await findRun(h.db, "r-1"))?.status).toBe("running");
    expect((await listRunEvents(h.db, "r-1")).map((e) => e.seq)).toEqual([1]);
  });

  it("touches the owner's existing thread and takes new state without duplicating resent messages", async () => {
    const again = await beginRun(h.db, {
      thread: { id: "t-new", tenantId: "tenant-acme", ownerId: "user-alice", title: "ignored", state: { step: 2 } },
      messages: [{ id: "r-1-a", role: "user", content: "first" }],
      run: { id: "r-2", agentId: "concierge", transportRunId: "y", instanceId: "i-test" },
      events: started,
    });
    expect(again).toMatchObject({ created: false, title: "t", state: { step: 2 } });
    expect(await listMessages(h.db, "t-new")).toHaveLength(2);
  });

  it("writes nothing at all when the thread belongs to another user or tenant", async () => {
    const before = await findThread(h.db, "t-new");
    expect(await begin(h, "t-new", "r-bob", { tenantId: "tenant-acme", ownerId: "user-bob" })).toBeUndefined();
    expect(await begin(h, "t-new", "r-mal", { tenantId: "tenant-globex", ownerId: "user-mallory" })).toBeUndefined();
    expect(await findRun(h.db, "r-bob")).toBeUndefined();
    expect(await findRun(h.db, "r-mal")).toBeUndefined();
    expect(await listMessages(h.db, "t-new")).toHaveLength(2);
    expect((await findThread(h.db, "t-new"))?.updatedAt).toEqual(before?.updatedAt);
  });

  it("names the tools its owner holds live standing approvals for in this conversation", async () => {
    const grant = (id: string, tool: string, owner: string, threadId: string | null, extra = sql``) =>
      h.db.execute(sql`
        insert into approval_grants (id, tenant_id, owner_id, thread_id, scope, agent_id, tool_name, tool_version, bounds,
          interaction_id, granted_by, expires_at, revoked_at)
        select ${id}, 'tenant-acme', ${owner}, ${threadId}::text, case when ${threadId}::text is null then 'hours' else 'thread' end,
          'concierge', ${tool}, 'v', '{}'::jsonb, ${`i-${id}`}, ${owner}, now() + interval '1 hour', null ${extra}`);
    await grant("g-here", "send_email", "user-alice", "t-grants");
    await grant("g-anywhere", "transfer_funds", "user-alice", null);
    await grant("g-elsewhere", "book_flight", "user-alice", "t-other");
    await grant("g-bob", "check_calendar", "user-bob", null);
    await grant("g-revoked", "research", "user-alice", null);
    await h.db.execute(sql`update approval_grants set revoked_at = now() where id = 'g-revoked'`);
    await grant("g-expired", "wait", "user-alice", null);
    await h.db.execute(sql`update approval_grants set expires_at = now() - interval '1 second' where id = 'g-expired'`);

    const thread = await begin(h, "t-grants", "r-grants");
    expect(thread?.grantTools.sort()).toEqual(["send_email", "transfer_funds"]);
    expect((await begin(h, "t-no-grants", "r-no-grants", { tenantId: "tenant-acme", ownerId: "user-carol" }))?.grantTools).toEqual([]);
  });

  it("commits events with the message and run status they describe, or none of them", async () => {
    await appendRunEvents(h.db, [
      {
        runId: "r-1",
        events: [logged(2, { type: "text.ended", messageId: "m" })],
        alongside: { messages: { threadId: "t-new", rows: [{ id: "reply-1", role: "assistant", content: "hi" }] } },
      },
    ]);
    expect((await listMessages(h.db, "t-new")).at(-1)?.content).toBe("hi");

    // seq 2 is taken: the whole statement fails, so neither the message nor the status lands.
    await expect(
      appendRunEvents(h.db, [
        {
          runId: "r-1",
          events: [logged(2, { type: "run.completed" })],
          alongside: {
            messages: { threadId: "t-new", rows: [{ id: "reply-2", role: "assistant", content: "lost" }] },
            run: { status: "completed", terminal: true },
          },
        },
      ]),
    ).rejects.toThrow();
    expect((await listMessages(h.db, "t-new")).map((m) => m.id)).not.toContain("reply-2");
    expect((await findRun(h.db, "r-1"))?.status).toBe("running");

    await appendRunEvents(h.db, [
      {
        runId: "r-1",
        events: [logged(3, { type: "run.completed" })],
        alongside: { run: { status: "completed", terminal: true, checkpoint: { step: 2, calls: [] } } },
      },
    ]);
    const run = await findRun(h.db, "r-1");
    expect(run).toMatchObject({ status: "completed" });
    expect(run?.readCheckpoint()).toMatchObject({ step: 2 });
    expect(run?.finishedAt).toBeInstanceOf(Date);
  });

  it("keeps event data exactly, whatever characters it holds", async () => {
    const data: RunEvent = { type: "text.delta", messageId: "m", delta: 'quote " backslash \\ comma , braces {} unicode ✓ newline \n' };
    await appendRunEvents(h.db, [{ runId: "r-2", events: [logged(2, data)] }]);
    expect((await listRunEvents(h.db, "r-2", 1))[0]?.data).toEqual(data);
    const count = await queryRows<{ n: number }>(h.db, sql`select count(*)::int as n from run_events where run_id = 'r-2'`);
    expect(count[0]?.n).toBe(2);
  });

  it("keeps messages, the thread's state and a gate's arguments exactly, whatever characters they hold", async () => {
    const tricky = 'quote " backslash \\ comma , braces {} NULL unicode ✓ 🚢 newline \n tab \t';
    await beginRun(h.db, {
      thread: {
        id: "t-tricky",
        tenantId: "tenant-acme",
        ownerId: "user-alice",
        title: tricky,
        state: { note: tricky, nested: { list: [tricky, null] } },
      },
      messages: [{ id: "m-tricky", role: "user", content: tricky }],
      run: { id: "r-tricky", agentId: "concierge", transportRunId: "x", instanceId: "i-test" },
      events: started,
    });
    await appendRunEvents(h.db, [
      {
        runId: "r-tricky",
        events: [logged(2, { type: "run.paused", interrupts: [] })],
        alongside: {
          messages: {
            threadId: "t-tricky",
            rows: [{ id: "m-call", role: "assistant", content: "", toolCalls: [{ id: "c", name: "send_email", args: { body: tricky } }] }],
          },
          run: { status: "paused", pauseReason: "hitl", checkpoint: { step: 1, calls: [], goal: tricky } },
          interactions: [
            {
              id: "gate-tricky",
              tenantId: "tenant-acme",
              threadId: "t-tricky",
              ownerId: "user-alice",
              kind: "approval",
              pauseReason: "hitl",
              policy: "owner",
              toolCallId: "c",
              toolName: "send_email",
              toolArgs: { body: tricky },
              message: tricky,
              instanceId: "i-test",
              expiresAt: new Date("2030-01-02T03:04:05.678Z"),
            },
          ],
        },
      },
    ]);
    const thread = await findThread(h.db, "t-tricky");
    expect(thread).toMatchObject({ title: tricky, state: { note: tricky, nested: { list: [tricky, null] } } });
    const messages = await listMessages(h.db, "t-tricky");
    expect(messages.map((m) => [m.content, m.toolCalls ?? null])).toEqual([
      [tricky, null],
      ["", [{ id: "c", name: "send_email", args: { body: tricky } }]],
    ]);
    expect((await findRun(h.db, "r-tricky"))?.readCheckpoint()).toEqual({ version: 1, step: 1, calls: [], goal: tricky });
    const [gate] = await queryRows<{ message: string; tool_args: unknown; expires_at: Date | string; quorum: number; remind_at: unknown }>(
      h.db,
      sql`select message, tool_args, expires_at, quorum, remind_at from interactions where id = 'gate-tricky'`,
    );
    expect(gate).toMatchObject({ message: tricky, tool_args: { body: tricky }, quorum: 1, remind_at: null });
    expect(new Date(gate!.expires_at).toISOString()).toBe("2030-01-02T03:04:05.678Z");
  });

  it("writes several runs' events, messages and statuses in one statement — or none of them", async () => {
    await begin(h, "t-a", "r-a");
    await begin(h, "t-b", "r-b");
    await appendRunEvents(h.db, [
      {
        runId: "r-a",
        events: [logged(2, { type: "text.ended", messageId: "m" })],
        alongside: { messages: { threadId: "t-a", rows: [{ id: "a-reply", role: "assistant", content: "for a" }] } },
      },
      {
        runId: "r-b",
        events: [
          logged(2, { type: "snapshot", state: {}, messages: [] }),
          logged(3, { type: "run.failed", code: "INTERNAL", message: "x" }),
        ],
        alongside: { run: { status: "failed", terminal: true, error: { code: "INTERNAL", message: "x" } } },
      },
    ]);
    expect((await listMessages(h.db, "t-a")).at(-1)?.content).toBe("for a");
    expect(await findRun(h.db, "r-a")).toMatchObject({ status: "running", error: null });
    expect(await findRun(h.db, "r-b")).toMatchObject({ status: "failed", error: { code: "INTERNAL" } });
    expect((await listRunEvents(h.db, "r-b")).map((e) => e.seq)).toEqual([1, 2, 3]);

    // r-b's seq 3 exists: the statement fails as a whole, and r-a's new event is not written either.
    await expect(
      appendRunEvents(h.db, [
        {
          runId: "r-a",
          events: [logged(3, { type: "run.completed" })],
          alongside: { run: { status: "completed", terminal: true } },
        },
        { runId: "r-b", events: [logged(3, { type: "text.ended", messageId: "again" })] },
      ]),
    ).rejects.toThrow();
    expect((await listRunEvents(h.db, "r-a")).map((e) => e.seq)).toEqual([1, 2]);
    expect((await findRun(h.db, "r-a"))?.status).toBe("running");
  });
});
