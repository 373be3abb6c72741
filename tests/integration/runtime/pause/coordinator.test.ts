import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "@/server/db/queries/audit";
import { findRun, listRunEvents } from "@/server/db/queries/runs";
import type { Identity, InterruptView, Runtime, StartRunRequest } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { drain, refused, started, testRuntime } from "../../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

let counter = 0;
const request = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `t-${++counter}`,
  messages: text ? [{ id: `m-${counter}`, role: "user", content: text }] : [],
  resume,
});

describe.each(testBackends())("the coordinator on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db);
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  const outbox = (userId: string) =>
    queryRows<{ kind: string; approved_by: string | null }>(
      database.db,
      sql`select kind, approved_by from outbox where user_id = ${userId}`,
    );

  /** Starts a run that parks; returns its interrupts. */
  async function park(who: Identity, threadId: string, text: string): Promise<{ runId: string; interrupts: InterruptView[] }> {
    const run = started(await runtime.startRun(who, request(threadId, text)));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error(`expected the run to park, it ended with ${JSON.stringify(last)}`);
    return { runId: run.runId, interrupts: last.interrupts };
  }

  const approve = (id: string, approved = true, reason?: string) => [
    { interactionId: id, status: "resolved" as const, payload: reason ? { approved, reason } : { approved } },
  ];

  it("parks a gated email, then on approval sends it exactly once and completes the same run", async () => {
    const { runId, interrupts } = await park(alice, "c-approve", "send an email to bob@example.com saying lunch at noon");
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]).toMatchObject({
      kind: "approval",
      reason: "hitl",
      policy: "owner",
      tool: { name: "send_email", args: { to: "bob@example.com", body: "lunch at noon" } },
    });
    expect(await findRun(database.db, runId)).toMatchObject({ status: "paused", pauseReason: "hitl" });
    expect(await outbox("user-alice")).toHaveLength(0);

    const resumed = started(await runtime.startRun(alice, request("c-approve", undefined, approve(interrupts[0]!.id))));
    expect(resumed.runId).toBe(runId);
    const events = (await drain(resumed.events)).map((e) => e.event);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["run.started", "pause.resumed", "tool.result", "text.started", "run.completed"]),
    );
    expect(events.find((e) => e.type === "pause.resumed")).toMatchObject({ decision: "approved", actorId: "user-alice" });
    const reply = events
      .filter((e) => e.type === "text.delta")
      .map((e) => (e.type === "text.delta" ? e.delta : ""))
      .join("");
    expect(reply).toBe("Email sent to bob@example.com.");
    expect(await findRun(database.db, runId)).toMatchObject({ status: "completed", pauseReason: null });
    expect(await outbox("user-alice")).toEqual([{ kind: "email", approved_by: "user-alice" }]);
    const seqs = (await listRunEvents(database.db, runId)).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const audit = await listAudit(database.db, "tenant-acme", { type: "interaction", id: interrupts[0]!.id });
    expect(audit).toMatchObject([{ actorId: "user-alice", action: "interaction.resolve", outcome: "resolved", details: { via: "agui" } }]);
  });

  it("refuses new input while a gate is open, an unknown interrupt, a repeat, and edited arguments — changing nothing", async () => {
    const { interrupts } = await park(alice, "c-rules", "send an email to carol@example.com saying hi");
    const id = interrupts[0]!.id;
    expect(refused(await runtime.startRun(alice, request("c-rules", "hello again")))).toMatchObject({ code: "PENDING_INTERACTION" });
    expect(refused(await runtime.startRun(alice, request("c-rules", undefined, approve("nope"))))).toMatchObject({
      code: "UNKNOWN_INTERRUPT",
    });
    const edited = [{ interactionId: id, status: "resolved" as const, payload: { approved: true, args: { to: "eve@example.com" } } }];
    expect(refused(await runtime.startRun(alice, request("c-rules", undefined, edited)))).toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "resume[0].payload" },
    });
    expect((await runtime.threads.get(alice, "c-rules")).messages.map((m) => m.content)).not.toContain("hello again");

    await drain(started(await runtime.startRun(alice, request("c-rules", undefined, approve(id)))).events);
    expect(refused(await runtime.startRun(alice, request("c-rules", undefined, approve(id))))).toMatchObject({ code: "ALREADY_RESOLVED" });
    expect(await outbox("user-alice")).toHaveLength(2);
  });

  it("makes a rejection terminal: the action never runs, the run ends rejected, the next message starts a new run", async () => {
    const before = (await outbox("user-alice")).length;
    const { runId, interrupts } = await park(alice, "c-reject", "send an email to dave@example.com saying bye");
    const resumed = started(await runtime.startRun(alice, request("c-reject", undefined, approve(interrupts[0]!.id, false, "not now"))));
    const events = (await drain(resumed.events)).map((e) => e.event);
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({ content: '{"rejected":true,"reason":"not now"}' });
    expect(events.at(-1)).toEqual({ type: "run.completed", status: "rejected" });
    expect(await findRun(database.db, runId)).toMatchObject({ status: "rejected" });
    expect(await outbox("user-alice")).toHaveLength(before);

    const next = started(await runtime.startRun(alice, request("c-reject", "hello")));
    expect(next.runId).not.toBe(runId);
    expect((await drain(next.events)).at(-1)?.event.type).toBe("run.completed");
  });

  it("executes the action once when 100 resumes of one gate arrive together; the other 99 get ALREADY_RESOLVED", async () => {
    const { interrupts } = await park(alice, "c-race", "send an email to race@example.com saying once");
    const attempts = await Promise.all(
      Array.from({ length: 100 }, () => runtime.startRun(alice, request("c-race", undefined, approve(interrupts[0]!.id)))),
    );
    const winners = attempts.filter((a) => !("refused" in a));
    expect(winners).toHaveLength(1);
    expect(attempts.filter((a) => "refused" in a).map((a) => ("refused" in a ? a.refused.code : ""))).toEqual(
      Array(99).fill("ALREADY_RESOLVED"),
    );
    await drain(started(winners[0]!).events);
    const rows = await queryRows(database.db, sql`select 1 from outbox o join runs r on r.id = o.run_id where r.thread_id = 'c-race'`);
    expect(rows).toHaveLength(1);
  });

  it("requires one resume to answer every open interrupt of the thread", async () => {
    const { interrupts } = await park(
      alice,
      "c-two",
      "send an email to a@example.com saying one\nsend an email to b@example.com saying two",
    );
    expect(interrupts).toHaveLength(2);
    const [first, second] = interrupts.map((i) => i.id);
    expect(refused(await runtime.startRun(alice, request("c-two", undefined, approve(first!))))).toMatchObject({
      code: "INCOMPLETE_RESUME",
    });
    const both = [...approve(first!), ...approve(second!, false)];
    const events = (await drain(started(await runtime.startRun(alice, request("c-two", undefined, both))).events)).map((e) => e.event);
    expect(events.filter((e) => e.type === "tool.result")).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: "run.completed", status: "rejected" });
  });

  it("routes a transfer to the tenant's approvers: never the requester, never another tenant", async () => {
    const { runId, interrupts } = await park(alice, "c-transfer", "transfer 250 EUR to ACME-42");
    const id = interrupts[0]!.id;
    expect(interrupts[0]).toMatchObject({ policy: "approvers", message: "Transfer 250 EUR to ACME-42" });
    expect(refused(await runtime.startRun(alice, request("c-transfer", undefined, approve(id))))).toMatchObject({ code: "FORBIDDEN" });
    await expect(runtime.interactions.resolve(alice, approve(id)[0]!)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(runtime.interactions.resolve(mallory, approve(id)[0]!)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(runtime.interactions.get(mallory, id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await runtime.interactions.list(bob, { status: "pending" })).map((i) => i.interactionId)).toContain(id);

    const follow = runtime.follow(runId);
    expect(await runtime.interactions.resolve(bob, approve(id)[0]!)).toEqual({ continued: [runId] });
    expect((await drain(follow)).at(-1)?.event.type).toBe("run.completed");
    expect(await outbox("user-alice")).toContainEqual({ kind: "transfer", approved_by: "user-bob" });
    expect(await runtime.interactions.get(alice, id)).toMatchObject({
      status: "resolved",
      resolvedBy: { id: "user-bob", name: expect.any(String) },
    });
  });

  it("lets the requester withdraw her own transfer request: nothing is transferred, and an approver can no longer decide it", async () => {
    const { runId, interrupts } = await park(alice, "c-withdraw", "transfer 75 EUR to ACME-WITHDRAWN");
    const id = interrupts[0]!.id;
    const cancel = { interactionId: id, status: "cancelled" as const };
    // Only the requester withdraws: another tenant does not even see it.
    await expect(runtime.interactions.resolve(mallory, cancel)).rejects.toMatchObject({ code: "NOT_FOUND" });

    const follow = runtime.follow(runId);
    expect(await runtime.interactions.resolve(alice, cancel)).toEqual({ continued: [runId] });
    expect((await drain(follow)).at(-1)?.event).toEqual({ type: "run.completed", status: "cancelled" });
    expect(await runtime.interactions.get(alice, id)).toMatchObject({ status: "cancelled", resolvedBy: { id: "user-alice" } });
    await expect(runtime.interactions.resolve(bob, approve(id)[0]!)).rejects.toMatchObject({ code: "ALREADY_RESOLVED" });
    expect(await queryRows(database.db, sql`select id from outbox where run_id = ${runId}`)).toEqual([]);
    // Withdrawing is not deciding: she still cannot approve her own request.
    const again = await park(alice, "c-withdraw-2", "transfer 76 EUR to ACME-WITHDRAWN-2");
    await expect(runtime.interactions.resolve(alice, approve(again.interrupts[0]!.id)[0]!)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await runtime.interactions.resolve(alice, { interactionId: again.interrupts[0]!.id, status: "cancelled" });
  });

  it("lists for a member only her own requests: never another person's, never another tenant's", async () => {
    const own = await park(alice, "c-inbox-alice", "transfer 11 EUR to ACME-MINE");
    const bobs = await park(bob, "c-inbox-bob", "transfer 12 EUR to ACME-BOBS");
    const bobsEmail = await park(bob, "c-inbox-bob-mail", "send an email to x@example.com saying bob's own");
    const mallorys = await park(mallory, "c-inbox-mallory", "transfer 13 EUR to GLOBEX-1");
    const listed = (await runtime.interactions.list(alice, { status: "pending" })).map((i) => i.interactionId);
    expect(listed).toContain(own.interrupts[0]!.id);
    for (const other of [bobs, bobsEmail, mallorys]) expect(listed).not.toContain(other.interrupts[0]!.id);
    // Filtering by someone else's id finds nothing, rather than their requests.
    expect(await runtime.interactions.list(alice, { requester: "user-bob" })).toEqual([]);
    await expect(runtime.interactions.get(alice, bobs.interrupts[0]!.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    // Bob, an approver, sees alice's routed request; mallory, in another tenant, does not.
    expect((await runtime.interactions.list(bob, { status: "pending" })).map((i) => i.interactionId)).toContain(own.interrupts[0]!.id);
    expect((await runtime.interactions.list(mallory, {})).map((i) => i.interactionId)).not.toContain(own.interrupts[0]!.id);

    // Everyone withdraws their own, leaving nothing open.
    for (const [who, parked] of [
      [alice, own],
      [bob, bobs],
      [bob, bobsEmail],
      [mallory, mallorys],
    ] as const)
      await runtime.interactions.resolve(who, { interactionId: parked.interrupts[0]!.id, status: "cancelled" });
  });

  it("checks a presented resume token against the caller's identity", async () => {
    const { interrupts } = await park(alice, "c-token", "send an email to t@example.com saying token");
    const [gate] = interrupts;
    const other = await park(alice, "c-token-2", "send an email to u@example.com saying other");
    const wrongToken = { ...approve(gate!.id)[0]!, resumeToken: other.interrupts[0]!.resumeToken };
    await expect(runtime.interactions.resolve(alice, wrongToken)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const rightToken = { ...approve(gate!.id)[0]!, resumeToken: gate!.resumeToken };
    expect((await runtime.interactions.resolve(alice, rightToken)).continued).toHaveLength(1);
  });
});

describe.each(testBackends())("interactions that cannot be answered any more, on $name", (backend) => {
  const database = useSeededDatabase(backend);

  it("expires a gate: the resume gets EXPIRED and the run ends expired", async () => {
    const runtime = testRuntime(database.db, { approvalTtlMs: 50 });
    const run = started(await runtime.startRun(alice, request("x-expired", "send an email to late@example.com saying hi")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    await new Promise((resolve) => setTimeout(resolve, 80));
    const id = last.interrupts[0]!.id;
    const answer = [{ interactionId: id, status: "resolved" as const, payload: { approved: true } }];
    expect(refused(await runtime.startRun(alice, request("x-expired", undefined, answer)))).toMatchObject({ code: "EXPIRED" });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "expired", error: { code: "EXPIRED" } });
    expect(refused(await runtime.startRun(alice, request("x-expired", undefined, answer)))).toMatchObject({ code: "EXPIRED" });
    runtime.close();
  });

  it("lets the owner abandon an expired gate (status cancelled): it closes, nothing is sent, and the thread moves on", async () => {
    const runtime = testRuntime(database.db, { approvalTtlMs: 50 });
    const run = started(await runtime.startRun(alice, request("x-abandon", "send an email to abandoned@example.com saying hi")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    await new Promise((resolve) => setTimeout(resolve, 80));
    const abandon = [{ interactionId: last.interrupts[0]!.id, status: "cancelled" as const }];
    // Overdue but not yet swept: the abandonment closes it as expiring would.
    const first = await runtime.startRun(alice, request("x-abandon", undefined, abandon));
    expect(first).toEqual({ abandoned: { runId: run.runId, threadId: "x-abandon" } });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "expired", error: { code: "EXPIRED" } });
    expect(await runtime.interactions.get(alice, last.interrupts[0]!.id)).toMatchObject({ status: "expired" });
    // Already closed: abandoning it again is answered the same way (a client that retries).
    expect(await runtime.startRun(alice, request("x-abandon", undefined, abandon))).toEqual(first);
    // Approving it is still refused: an expired gate never runs its action.
    const approveLate = [{ interactionId: last.interrupts[0]!.id, status: "resolved" as const, payload: { approved: true } }];
    expect(refused(await runtime.startRun(alice, request("x-abandon", undefined, approveLate)))).toMatchObject({ code: "EXPIRED" });
    expect((await drain(started(await runtime.startRun(alice, request("x-abandon", "hello"))).events)).at(-1)?.event.type).toBe(
      "run.completed",
    );
    runtime.close();
  });

  it("lets go of a parked run once its gate expired and was abandoned on another instance (the holder's next sweep)", async () => {
    const holder = testRuntime(database.db, { approvalTtlMs: 50, alone: false });
    const other = testRuntime(database.db, { approvalTtlMs: 50, alone: false });
    const run = started(await holder.startRun(alice, request("x-abandon-elsewhere", "send an email to elsewhere@example.com saying hi")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    expect(holder.parkedCount()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const abandon = [{ interactionId: last.interrupts[0]!.id, status: "cancelled" as const }];
    expect(await other.startRun(alice, request("x-abandon-elsewhere", undefined, abandon))).toMatchObject({
      abandoned: { runId: run.runId },
    });
    await holder.sweepNow();
    expect(holder.parkedCount()).toBe(0);
    holder.close();
    other.close();
  });

  it("abandons only what nobody can answer: a live gate's cancel is a cancel, another user's or tenant's gate is refused", async () => {
    const runtime = testRuntime(database.db, { approvalTtlMs: 50 });
    const run = started(await runtime.startRun(alice, request("x-abandon-2", "send an email to other@example.com saying hi")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    await new Promise((resolve) => setTimeout(resolve, 80));
    const abandon = [{ interactionId: last.interrupts[0]!.id, status: "cancelled" as const }];
    // Refused before any stream starts (an HTTP status): the thread is someone else's.
    await expect(runtime.startRun(mallory, request("x-abandon-2", undefined, abandon))).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(runtime.startRun(bob, request("x-abandon-2", undefined, abandon))).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await runtime.interactions.get(alice, last.interrupts[0]!.id)).toMatchObject({ status: "pending" });
    runtime.close();

    const live = testRuntime(database.db);
    const parked = started(await live.startRun(alice, request("x-cancel-live", "send an email to live@example.com saying hi")));
    const gate = (await drain(parked.events)).at(-1)!.event;
    if (gate.type !== "run.paused") throw new Error("expected a pause");
    const cancel = [{ interactionId: gate.interrupts[0]!.id, status: "cancelled" as const }];
    const ended = (await drain(started(await live.startRun(alice, request("x-cancel-live", undefined, cancel))).events)).at(-1);
    expect(ended?.event).toMatchObject({ type: "run.completed", status: "cancelled" });
    live.close();
  });

  it("ends a run as a whole: when one of its gates expires, its other gate closes too and the thread is free", async () => {
    const runtime = testRuntime(database.db, { approvalTtlMs: 50 });
    const run = started(await runtime.startRun(alice, request("x-two", "send an email to a@example.com saying 1\ntransfer 5 EUR to X-1")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    await new Promise((resolve) => setTimeout(resolve, 80));
    const [email, transfer] = last.interrupts;
    await expect(
      runtime.interactions.resolve(alice, { interactionId: email!.id, status: "resolved", payload: { approved: true } }),
    ).rejects.toMatchObject({
      code: "EXPIRED",
    });
    expect(await runtime.interactions.get(alice, transfer!.id)).toMatchObject({ status: "expired" });
    expect((await drain(started(await runtime.startRun(alice, request("x-two", "hello"))).events)).at(-1)?.event.type).toBe(
      "run.completed",
    );
    runtime.close();
  });

  it("marks what an earlier process held as lost at start-up; answering it gets INTERACTION_LOST and the thread is free again", async () => {
    const earlier = testRuntime(database.db);
    const run = started(await earlier.startRun(alice, request("x-lost", "send an email to gone@example.com saying hi")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    earlier.close();

    const restarted = testRuntime(database.db);
    await restarted.start();
    const answer = [{ interactionId: last.interrupts[0]!.id, status: "resolved" as const, payload: { approved: true } }];
    const lost = refused(await restarted.startRun(alice, request("x-lost", undefined, answer)));
    expect(lost).toMatchObject({ code: "INTERACTION_LOST" });
    expect(lost.message).toMatch(/ask again/i);
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "lost" });
    const events = await listRunEvents(database.db, run.runId);
    expect(events.at(-1)).toMatchObject({ type: "run.failed", data: { code: "INTERACTION_LOST" } });
    expect((await drain(started(await restarted.startRun(alice, request("x-lost", "hello"))).events)).at(-1)?.event.type).toBe(
      "run.completed",
    );
    restarted.close();
  });
});
