/**
 * Gates that need several approvers: each approval is a vote until the quorum is reached, the vote
 * that reaches it resolves the gate once, one rejection rejects, and the requester never votes.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { users } from "@/server/db/schema";
import { findRun } from "@/server/db/queries/runs";
import type { Identity, InterruptView, Runtime } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, BOB, CAROL, drain, started, testRuntime, watchUntil } from "../../../helpers/runtime";

let counter = 0;

describe.each(testBackends())("approval quorums on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db);
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  /** Alice asks for a transfer; returns its run and gate. */
  async function transfer(amount: number): Promise<{ runId: string; gate: InterruptView }> {
    const threadId = `q-${++counter}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: `transfer ${amount} EUR to X-${counter}` }],
      }),
    );
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error(`expected a gate, got ${last.type}`);
    return { runId: run.runId, gate: last.interrupts[0]! };
  }
  const decide = (who: Identity, id: string, approved: boolean, reason?: string) => runtime.interactions.decide(who, id, approved, reason);
  const transfers = (runId: string) =>
    queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from outbox where run_id = ${runId} and kind = 'transfer'`);

  it("takes one approver below the threshold and two from 10,000 on, announced with the interrupt", async () => {
    const small = await transfer(9_999);
    expect(small.gate.quorum).toBeUndefined();
    expect(await decide(BOB, small.gate.id, true)).toEqual({ continued: [small.runId] });
    const large = await transfer(12_000);
    expect(large.gate).toMatchObject({ policy: "approvers", quorum: 2 });
    await decide(BOB, large.gate.id, false);
  });

  it("records the first approval as a vote and resolves the gate with the second; nobody votes twice, the requester never", async () => {
    const { runId, gate } = await transfer(12_000);
    expect(await decide(BOB, gate.id, true, "looks right")).toEqual({ continued: [] });
    const open = await runtime.interactions.get(CAROL, gate.id);
    expect(open).toMatchObject({
      status: "pending",
      quorum: 2,
      votes: [{ by: BOB.userId, name: "Bob", approved: true, reason: "looks right" }],
    });
    expect(open.mayVote.map((u) => u.id)).toEqual([CAROL.userId]);
    await expect(decide(BOB, gate.id, true)).rejects.toMatchObject({ code: "ALREADY_VOTED" });
    await expect(decide(ALICE, gate.id, true)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await findRun(database.db, runId))?.status).toBe("paused");

    expect(await decide(CAROL, gate.id, true)).toEqual({ continued: [runId] });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await findRun(database.db, runId))?.status).toBe("completed");
    expect((await transfers(runId))[0]!.n).toBe(1);
    const decided = await runtime.interactions.get(BOB, gate.id);
    expect(decided).toMatchObject({ status: "resolved", mayVote: [] });
    expect(decided.votes.map((v) => v.by)).toEqual([BOB.userId, CAROL.userId]);
    await expect(decide(BOB, gate.id, true)).rejects.toMatchObject({ code: "ALREADY_RESOLVED" });
  });

  it("lets the requester withdraw a gate that needs several approvers at once, without counting as a vote", async () => {
    const { runId, gate } = await transfer(12_000);
    await decide(BOB, gate.id, true);
    expect(await runtime.interactions.resolve(ALICE, { interactionId: gate.id, status: "cancelled" })).toEqual({ continued: [runId] });
    const closed = await runtime.interactions.get(CAROL, gate.id);
    expect(closed).toMatchObject({ status: "cancelled", resolvedBy: { id: ALICE.userId } });
    expect(closed.votes.map((v) => v.by)).toEqual([BOB.userId]);
    await expect(decide(CAROL, gate.id, true)).rejects.toMatchObject({ code: "ALREADY_RESOLVED" });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect(await transfers(runId)).toEqual([{ n: 0 }]);
  });

  it("rejects at the first rejection, whatever approvals came before", async () => {
    const { runId, gate } = await transfer(50_000);
    await decide(BOB, gate.id, true);
    expect(await decide(CAROL, gate.id, false, "too much at once")).toEqual({ continued: [runId] });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await findRun(database.db, runId))?.status).toBe("rejected");
    expect((await transfers(runId))[0]!.n).toBe(0);
    const decided = await runtime.interactions.get(CAROL, gate.id);
    expect(decided).toMatchObject({ status: "rejected", decision: { approved: false, reason: "too much at once" } });
    expect(decided.votes.map((v) => [v.by, v.approved])).toEqual([
      [BOB.userId, true],
      [CAROL.userId, false],
    ]);
  });

  it("resolves once when fifty approvers approve at the same moment", async () => {
    const approvers: Identity[] = Array.from({ length: 50 }, (_, i) => ({
      tenantId: "tenant-acme",
      userId: `user-approver-${i}`,
      roles: ["member", "approver"],
    }));
    await database.db.insert(users).values(
      approvers.map((a, i) => ({
        id: a.userId,
        tenantId: a.tenantId,
        email: `approver-${i}@acme.test`,
        name: `Approver ${i}`,
        role: "approver" as const,
        passwordHash: "x",
      })),
    );
    const { runId, gate } = await transfer(20_000);
    const answers = await Promise.allSettled(approvers.map((a) => decide(a, gate.id, true)));
    const continued = answers.filter((a) => a.status === "fulfilled" && a.value.continued.length > 0);
    expect(continued).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === "rejected") expect(answer.reason).toMatchObject({ code: "ALREADY_RESOLVED" });
    }
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await transfers(runId))[0]!.n).toBe(1);
    const decided = await runtime.interactions.get(CAROL, gate.id);
    expect(decided.status).toBe("resolved");
    expect(decided.votes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(decided.votes.map((v) => v.by)).size).toBe(decided.votes.length);
  });
});
