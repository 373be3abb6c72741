/**
 * Retention: the sweep deletes a tenant's conversations past its policy with everything hanging on
 * them — never one whose run still waits — and its audit rows past the audit policy after an anchor
 * records the hash they end on, so what remains still chains; it runs once across the cluster; an
 * admin sees what it will delete and when, sets the tenant's days, and erases one user's
 * conversations on request, each audited.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "@/server/db/queries/audit";
import { HarborError, type Runtime, type VerifiedIdentity } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, BOB, CAROL, drain, MALLORY, started, testRuntime } from "../../../helpers/runtime";

const RETENTION = { conversationDays: 0, auditDays: 0, everyMs: 3_600_000, batch: 2 };
const DAY = "interval '1 day'";

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    if (HarborError.is(error)) return error.code;
    throw error;
  }
}

describe.each(testBackends())("retention on $name", (backend) => {
  const h = useSeededDatabase(backend);
  let runtime: Runtime;

  beforeAll(() => {
    runtime = testRuntime(h.db, { retention: RETENTION });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  /** A finished conversation of `who` (its run completed), and its thread id. */
  async function conversation(who: VerifiedIdentity, message = "hello"): Promise<string> {
    const threadId = randomUUID();
    const run = started(
      await runtime.startRun(who, {
        agentId: "concierge",
        threadId,
        transportRunId: randomUUID(),
        messages: [{ id: randomUUID(), role: "user", content: message }],
      }),
    );
    await drain(run.events);
    return threadId;
  }

  const age = (threadId: string, days: number) =>
    h.db.execute(sql`update threads set updated_at = now() - ${days} * ${sql.raw(DAY)} where id = ${threadId}`);
  const count = async (table: string, threadId: string) =>
    (await queryRows<{ n: number }>(h.db, sql`select count(*)::int as n from ${sql.raw(table)} where thread_id = ${threadId}`))[0]!.n;

  it("deletes conversations past the tenant's days with their runs, events and messages, but never one that waits", async () => {
    const old = [await conversation(ALICE), await conversation(BOB)];
    const waiting = await conversation(ALICE, "send an email to keep@example.com saying wait");
    const recent = await conversation(ALICE);
    for (const threadId of [...old, waiting]) await age(threadId, 40);
    await age(recent, 10);

    const view = await runtime.retention.set(CAROL, { conversationDays: 30, auditDays: null });
    expect(view).toMatchObject({
      conversationDays: 30,
      own: { conversationDays: 30, auditDays: null },
      next: { conversations: { count: 2 } },
    });

    const swept = await runtime.retention.sweep(true);
    expect(swept?.find((t) => t.tenantId === "tenant-acme")).toMatchObject({ conversations: 2 });
    for (const threadId of old) {
      expect(await count("messages", threadId)).toBe(0);
      expect(await count("runs", threadId)).toBe(0);
    }
    expect(await count("runs", waiting)).toBe(1);
    expect(await count("runs", recent)).toBe(1);
    const events = await queryRows<{ n: number }>(
      h.db,
      sql`select count(*)::int as n from run_events e left join runs r on r.id = e.run_id where r.id is null`,
    );
    expect(events[0]!.n).toBe(0);

    const audit = await listAudit(h.db, "tenant-acme", { type: "tenant", id: "tenant-acme" });
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["retention.policy", "retention.sweep"]));
    expect(audit.find((a) => a.action === "retention.sweep")?.details).toMatchObject({ conversations: 2, conversationDays: 30 });
    expect((await runtime.retention.view(CAROL)).lastSweepAt).toBeInstanceOf(Date);
  });

  it("removes audit rows past the audit policy after an anchor, and what remains still chains from it", async () => {
    // Globex's history: five rows from long ago, then today's.
    for (let i = 0; i < 5; i++) {
      await h.db.execute(sql`insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details, created_at)
        values ('tenant-globex', 'user-mallory', 'old.thing', 'x', ${`old-${i}`}, 'ok', '{}', now() - interval '400 days')`);
    }
    await runtime.retention.set(MALLORY, { conversationDays: null, auditDays: 365 });
    expect((await runtime.retention.view(MALLORY)).next.audit?.rows).toBeGreaterThanOrEqual(5);

    const swept = await runtime.retention.sweep(true);
    const globex = swept?.find((t) => t.tenantId === "tenant-globex");
    expect(globex?.auditRows).toBeGreaterThanOrEqual(5);
    const anchor = (await runtime.retention.view(MALLORY)).auditAnchor;
    expect(anchor).toMatchObject({ seq: globex!.auditRows, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const rows = await queryRows<{ seq: string; prev_hash: string; hash: string; ok: boolean }>(
      h.db,
      sql`select seq::text, prev_hash, hash,
            hash = audit_log_hash(prev_hash, audit_log_canonical(id, seq, tenant_id, created_at, actor_id, action, subject_type, subject_id, outcome, details)) as ok
          from audit_log where tenant_id = 'tenant-globex' order by seq`,
    );
    expect(rows[0]!.prev_hash).toBe(anchor!.hash);
    expect(Number(rows[0]!.seq)).toBe(anchor!.seq + 1);
    for (const [i, row] of rows.entries()) {
      expect(row.ok).toBe(true);
      if (i > 0) expect(row.prev_hash).toBe(rows[i - 1]!.hash);
    }
    expect(rows.some((r) => r.hash === anchor!.hash)).toBe(false);
  });

  it("still refuses any other delete of audit rows, even one that says it is retention's above the anchor", async () => {
    /** The database's own refusal, under Drizzle's "Failed query" wrapper. */
    const refusal = async (work: Promise<unknown>) => {
      const error: unknown = await work.then(
        () => undefined,
        (e: unknown) => e,
      );
      return error instanceof Error ? `${error.message} ${error.cause instanceof Error ? error.cause.message : ""}` : "";
    };
    expect(await refusal(h.db.execute(sql`delete from audit_log where tenant_id = 'tenant-acme'`))).toMatch(/append-only/);
    const aboveAnchor = h.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('harbor.audit_retention', 'on', true)`);
      await tx.execute(sql`delete from audit_log where tenant_id = 'tenant-globex'`);
    });
    expect(await refusal(aboveAnchor)).toMatch(/append-only/);
  });

  it("erases one user's conversations on an admin's request, keeping those a run holds, audited", async () => {
    const bobs = [await conversation(BOB), await conversation(BOB), await conversation(BOB)];
    const held = await conversation(BOB, "send an email to held@example.com saying hold on");
    const alices = await conversation(ALICE);
    expect(await runtime.retention.eraseUser(CAROL, "user-bob")).toEqual({ erased: 3, kept: 1 });
    for (const threadId of bobs) expect(await count("runs", threadId)).toBe(0);
    expect(await count("runs", held)).toBe(1);
    expect(await count("runs", alices)).toBe(1);
    const audit = await listAudit(h.db, "tenant-acme", { type: "user", id: "user-bob" });
    expect(audit.find((a) => a.action === "retention.erase_user")).toMatchObject({
      actorId: "user-carol",
      details: { conversations: 3, keptWhileRunning: 1 },
    });
  });

  it("lets only the tenant's admins see or change retention, and never for another tenant's users", async () => {
    expect(await codeOf(runtime.retention.view(ALICE))).toBe("FORBIDDEN");
    expect(await codeOf(runtime.retention.set(BOB, { conversationDays: 1, auditDays: 1 }))).toBe("FORBIDDEN");
    expect(await codeOf(runtime.retention.eraseUser(ALICE, "user-bob"))).toBe("FORBIDDEN");
    expect(await codeOf(runtime.retention.eraseUser(MALLORY, "user-bob"))).toBe("NOT_FOUND");
  });

  it("sweeps once per interval across the cluster: a second instance asking at once finds it taken", async () => {
    const other = testRuntime(h.db, { retention: RETENTION, instanceId: "other-instance" });
    try {
      const [first, second] = await Promise.all([runtime.retention.sweep(true), other.retention.sweep()]);
      expect([first, second].filter((r) => r !== undefined)).toHaveLength(1);
      expect(await other.retention.sweep()).toBeUndefined();
    } finally {
      other.close();
    }
  });
});
