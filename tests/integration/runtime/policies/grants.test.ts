/**
 * Standing approvals: an approval may also allow later calls of the tool within bounds taken from
 * the approved call, for the conversation or some hours. A covered call passes without a pause,
 * recorded in the run's log and the audit with its grant; anything outside the grant pauses again.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "@/server/db/queries/audit";
import { findCoveringGrant } from "@/server/db/queries/grants";
import { appendRunEvents } from "@/server/db/queries/run-writes";
import { z } from "zod";
import { HarborError, tool, type Identity, type InterruptView, type Planner, type RunEvent, type Runtime } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { agentOf, ALICE, BOB, CAROL, MALLORY, drain, started, testRuntime, watchUntil } from "../../../helpers/runtime";

let counter = 0;

describe.each(testBackends())("standing approvals on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db);
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  /** `who` says `text` on `threadId`; the run either parks (its gate) or completes (its events). */
  async function ask(who: Identity, threadId: string, text: string) {
    const run = started(
      await runtime.startRun(who, {
        agentId: "concierge",
        threadId,
        transportRunId: `t-${++counter}`,
        messages: [{ id: `m-${counter}`, role: "user", content: text }],
      }),
    );
    const events = (await drain(run.events)).map((e) => e.event);
    const last = events.at(-1)!;
    const gate: InterruptView | undefined = last.type === "run.paused" ? last.interrupts[0] : undefined;
    return { runId: run.runId, events, gate };
  }

  /** Answers a gate the AG-UI way (owner gates): returns the continuation's events. */
  async function answer(who: Identity, threadId: string, gate: InterruptView, payload: Record<string, unknown>) {
    const run = started(
      await runtime.startRun(who, {
        agentId: "concierge",
        threadId,
        transportRunId: `t-${++counter}`,
        messages: [],
        resume: [{ interactionId: gate.id, status: "resolved", payload }],
      }),
    );
    return (await drain(run.events)).map((e) => e.event);
  }

  const reply = (events: RunEvent[]) =>
    events
      .filter((e) => e.type === "text.delta")
      .map((e) => (e.type === "text.delta" ? e.delta : ""))
      .join("");
  const grantRows = (interactionId: string) =>
    queryRows<{ id: string; scope: string; thread_id: string | null; owner_id: string; granted_by: string; bounds: unknown; uses: number }>(
      database.db,
      sql`select id, scope, thread_id, owner_id, granted_by, bounds, uses from approval_grants where interaction_id = ${interactionId}`,
    );
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!HarborError.is(error)) throw new Error(`expected a HarborError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  };
  /** Alice's email to `to` approved for the conversation: the grant's id. */
  async function emailGrant(threadId: string, to: string, grant: Record<string, unknown> = { scope: "thread" }) {
    const { gate } = await ask(ALICE, threadId, `send an email to ${to} saying hi`);
    const done = await answer(ALICE, threadId, gate!, { approved: true, grant });
    expect(reply(done)).toBe(`Email sent to ${to}.`);
    return (await grantRows(gate!.id))[0]!.id;
  }

  it("offers the bounds with the gate, creates the grant with the approval, and lets a matching call through without a pause", async () => {
    const first = await ask(ALICE, "g-email", "send an email to bob@example.com saying hi");
    expect(first.gate).toMatchObject({
      kind: "approval",
      detail: { grant: { bounds: { to: { equals: "bob@example.com" } }, summary: "emails to bob@example.com" } },
    });
    const done = await answer(ALICE, "g-email", first.gate!, { approved: true, grant: { scope: "thread" } });
    expect(reply(done)).toBe("Email sent to bob@example.com.");
    const [grant] = await grantRows(first.gate!.id);
    expect(grant).toMatchObject({
      scope: "thread",
      thread_id: "g-email",
      owner_id: "user-alice",
      granted_by: "user-alice",
      bounds: { to: { equals: "bob@example.com" } },
    });
    const [gate] = await queryRows<{ decision: { grantId?: string } }>(
      database.db,
      sql`select decision from interactions where id = ${first.gate!.id}`,
    );
    expect(gate!.decision.grantId).toBe(grant!.id);
    expect(await listAudit(database.db, "tenant-acme", { type: "grant", id: grant!.id })).toMatchObject([
      { action: "grant.create", actorId: "user-alice", details: { interactionId: first.gate!.id, tool: "send_email", scope: "thread" } },
    ]);

    const again = await ask(ALICE, "g-email", "send an email to bob@example.com saying hello again");
    expect(again.gate).toBeUndefined();
    expect(again.events.some((e) => e.type === "pause.requested")).toBe(false);
    const used = again.events.find((e) => e.type === "grant.used");
    expect(used).toMatchObject({ grantId: grant!.id, toolName: "send_email", grantedBy: "user-alice" });
    expect(reply(again.events)).toBe("Email sent to bob@example.com under your standing approval.");
    const sent = await queryRows<{ approved_by: string; details: { body: string } }>(
      database.db,
      sql`select approved_by, details from outbox where run_id = ${again.runId}`,
    );
    expect(sent).toEqual([{ approved_by: "user-alice", details: { to: "bob@example.com", body: "hello again" } }]);
    const audit = await listAudit(database.db, "tenant-acme", { type: "grant", id: grant!.id });
    expect(audit[0]).toMatchObject({
      action: "grant.use",
      outcome: "used",
      details: { runId: again.runId, toolCallId: used?.type === "grant.used" ? used.toolCallId : "", tool: "send_email" },
    });
    expect((await grantRows(first.gate!.id))[0]!.uses).toBe(1);
  });

  it("pauses again for another recipient, in another conversation, and for someone else", async () => {
    await emailGrant("g-miss", "carol@example.com");
    expect((await ask(ALICE, "g-miss", "send an email to dave@example.com saying hi")).gate).toBeDefined();
    expect((await ask(ALICE, "g-miss-elsewhere", "send an email to carol@example.com saying hi")).gate).toBeDefined();
    // Someone else's runs never use it, even in a conversation of theirs.
    expect((await ask(BOB, "g-miss-bob", "send an email to carol@example.com saying hi")).gate).toBeDefined();
  });

  it("pauses again once the tool changed or the grant expired", async () => {
    const changed = await emailGrant("g-version", "erin@example.com");
    await database.db.execute(sql`update approval_grants set tool_version = 'an-older-version' where id = ${changed}`);
    expect((await ask(ALICE, "g-version", "send an email to erin@example.com saying hi")).gate).toBeDefined();

    const expired = await emailGrant("g-expired", "frank@example.com");
    await database.db.execute(sql`update approval_grants set expires_at = now() - interval '1 second' where id = ${expired}`);
    expect((await ask(ALICE, "g-expired", "send an email to frank@example.com saying hi")).gate).toBeDefined();
  });

  it("lets an hours-scoped grant through in the owner's other conversations", async () => {
    await emailGrant("g-hours", "gina@example.com", { scope: "hours", hours: 2 });
    const [row] = await queryRows<{ thread_id: string | null; hours: number }>(
      database.db,
      sql`select thread_id, round(extract(epoch from expires_at - created_at) / 3600)::int as hours from approval_grants where bounds->'to'->>'equals' = 'gina@example.com'`,
    );
    expect(row).toEqual({ thread_id: null, hours: 2 });
    const elsewhere = await ask(ALICE, "g-hours-other", "send an email to gina@example.com saying hi");
    expect(elsewhere.gate).toBeUndefined();
    expect(reply(elsewhere.events)).toContain("under your standing approval");
  });

  it("binds a transfer to its account and currency and an amount up to the cap the approver set", async () => {
    const { runId, gate } = await ask(ALICE, "g-transfer", "transfer 500 EUR to DE-1");
    expect(gate?.detail?.grant).toMatchObject({
      summary: "transfers to DE-1 up to 500 EUR",
      caps: [{ field: "amount", approved: 500, limit: 5000 }],
    });
    // The cap stays within what the tool declares; the requester may not grant on her own gate.
    expect(
      await refusal(runtime.interactions.decide(BOB, gate!.id, true, undefined, { scope: "hours", hours: 2, caps: { amount: 6000 } })),
    ).toMatchObject({ code: "INVALID_INPUT" });
    expect(
      await refusal(runtime.interactions.decide(BOB, gate!.id, true, undefined, { scope: "hours", hours: 2, caps: { currency: 1 } })),
    ).toMatchObject({ code: "INVALID_INPUT" });
    expect(await refusal(runtime.interactions.decide(ALICE, gate!.id, true, undefined, { scope: "thread" }))).toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await runtime.interactions.decide(BOB, gate!.id, true, undefined, { scope: "thread", caps: { amount: 800 } })).toEqual({
      continued: [runId],
    });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    const [grant] = await grantRows(gate!.id);
    expect(grant).toMatchObject({
      granted_by: "user-bob",
      owner_id: "user-alice",
      bounds: { to: { equals: "DE-1" }, currency: { equals: "EUR" }, amount: { atMost: 800 } },
    });

    const within = await ask(ALICE, "g-transfer", "transfer 800 EUR to DE-1");
    expect(within.gate).toBeUndefined();
    expect(reply(within.events)).toBe("Transferred 800 EUR to DE-1 under a standing approval.");
    const [row] = await queryRows<{ approved_by: string }>(database.db, sql`select approved_by from outbox where run_id = ${within.runId}`);
    expect(row).toEqual({ approved_by: "user-bob" });
    for (const text of ["transfer 801 EUR to DE-1", "transfer 100 USD to DE-1", "transfer 100 EUR to DE-2"]) {
      const outside = await ask(ALICE, "g-transfer", text);
      expect(outside.gate, text).toBeDefined();
      await runtime.interactions.decide(BOB, outside.gate!.id, false);
      await watchUntil(runtime, outside.runId, (e) => e.type === "run.completed");
    }
  });

  it("offers nothing on a gate that needs two approvers, and takes a grant only with an approval", async () => {
    const large = await ask(ALICE, "g-quorum", "transfer 12000 EUR to DE-9");
    expect(large.gate).toMatchObject({ quorum: 2 });
    expect(large.gate?.detail?.grant).toBeUndefined();
    expect(await refusal(runtime.interactions.decide(BOB, large.gate!.id, true, undefined, { scope: "thread" }))).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("several approvers"),
    });
    await runtime.interactions.decide(BOB, large.gate!.id, false);

    const email = await ask(ALICE, "g-reject", "send an email to hank@example.com saying hi");
    expect(
      await refusal(
        runtime.interactions.resolve(ALICE, {
          interactionId: email.gate!.id,
          status: "resolved",
          payload: { approved: false, grant: { scope: "thread" } },
        }),
      ),
    ).toMatchObject({ code: "INVALID_INPUT" });
    expect(
      await refusal(
        runtime.interactions.resolve(ALICE, {
          interactionId: email.gate!.id,
          status: "resolved",
          payload: { approved: true, grant: { scope: "hours" } },
        }),
      ),
    ).toMatchObject({ code: "INVALID_INPUT" });
    expect(await grantRows(email.gate!.id)).toEqual([]);
  });

  it("lists grants for their owner and grantor (admins: the tenant's) and revokes them: the next call pauses again", async () => {
    const grantId = await emailGrant("g-revoke", "ivy@example.com");
    expect((await runtime.grants.list(ALICE)).find((g) => g.grantId === grantId)).toMatchObject({
      toolName: "send_email",
      toolTitle: "Send an email",
      summary: "emails to ivy@example.com",
      scope: "thread",
      current: true,
      owner: { id: "user-alice" },
      grantedBy: { id: "user-alice" },
    });
    expect((await runtime.grants.list(CAROL)).some((g) => g.grantId === grantId)).toBe(true);
    expect((await runtime.grants.list(BOB)).some((g) => g.grantId === grantId)).toBe(false);
    expect(await runtime.grants.list(MALLORY)).toEqual([]);

    expect(await refusal(runtime.grants.revoke(MALLORY, grantId))).toMatchObject({ code: "NOT_FOUND" });
    expect(await refusal(runtime.grants.revoke(BOB, grantId))).toMatchObject({ code: "FORBIDDEN" });
    expect(await runtime.grants.revoke(ALICE, grantId)).toEqual({ revoked: true });
    expect(await runtime.grants.revoke(ALICE, grantId)).toEqual({ revoked: true });
    expect((await runtime.grants.list(ALICE)).some((g) => g.grantId === grantId)).toBe(false);
    expect((await listAudit(database.db, "tenant-acme", { type: "grant", id: grantId })).map((a) => a.action)).toEqual([
      "grant.revoke",
      "grant.create",
    ]);
    expect((await ask(ALICE, "g-revoke", "send an email to ivy@example.com saying hi")).gate).toBeDefined();
  });

  it("stops letting calls through once the approver who gave the grant is no longer an approver", async () => {
    const { runId, gate } = await ask(ALICE, "g-demoted", "transfer 50 EUR to DE-7");
    await runtime.interactions.decide(BOB, gate!.id, true, undefined, { scope: "hours", hours: 2 });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await ask(ALICE, "g-demoted", "transfer 40 EUR to DE-7")).gate).toBeUndefined();
    await database.db.execute(sql`update users set role = 'member' where id = 'user-bob'`);
    try {
      const after = await ask(ALICE, "g-demoted", "transfer 40 EUR to DE-7");
      expect(after.gate).toBeDefined();
      await runtime.interactions.decide(CAROL, after.gate!.id, false);
    } finally {
      await database.db.execute(sql`update users set role = 'approver' where id = 'user-bob'`);
    }
  });

  it("asks again for a call its grant let through when the run parked at another gate and the grant ended meanwhile", async () => {
    // Pays and writes a note in one step: the payment is granted, the note is the owner's to approve.
    const pay = tool({
      name: "pay",
      description: "pays someone",
      input: z.strictObject({ to: z.string() }),
      output: z.strictObject({ paid: z.string() }),
      approval: {
        policy: "owner",
        describe: ({ to }) => `Pay ${to}`,
        grantable: { fields: { to: "equal" }, describe: (b) => `payments to ${String(b.to && "equals" in b.to ? b.to.equals : "")}` },
      },
      execute: async ({ to }) => ({ paid: to }),
    });
    const note = tool({
      name: "note",
      description: "writes a note",
      input: z.strictObject({}),
      output: z.strictObject({}),
      approval: { policy: "owner", describe: () => "Write a note" },
      execute: async () => ({}),
    });
    const planner: Planner = {
      next(state) {
        const last = state.transcript.at(-1);
        if (last?.role !== "user") return { type: "finish" };
        const calls = [{ name: "pay", args: { to: "sam" } }];
        return { type: "call_tools", calls: last.content === "both" ? [...calls, { name: "note", args: {} }] : calls };
      },
    };
    const agents = new Map([
      [
        "payer",
        agentOf(
          "payer",
          planner,
          new Map([
            ["pay", pay],
            ["note", note],
          ]),
        ),
      ],
    ]);
    const own = testRuntime(database.db, { agents, alone: false });
    const say = async (content: string) => {
      const run = started(
        await own.startRun(ALICE, {
          agentId: "payer",
          threadId: "g-parked",
          transportRunId: `t-${++counter}`,
          messages: [{ id: `m-${counter}`, role: "user", content }],
        }),
      );
      const last = (await drain(run.events)).at(-1)!.event;
      return { runId: run.runId, gate: last.type === "run.paused" ? last.interrupts[0] : undefined };
    };
    try {
      const first = await say("pay");
      await own.interactions.decide(ALICE, first.gate!.id, true, undefined, { scope: "thread" });
      await watchUntil(own, first.runId, (e) => e.type === "run.completed");
      const [grant] = await grantRows(first.gate!.id);

      const both = await say("both");
      expect(both.gate?.message).toBe("Write a note");
      await own.grants.revoke(ALICE, grant!.id);
      await own.interactions.decide(ALICE, both.gate!.id, true);
      const events = await watchUntil(
        own,
        both.runId,
        (e) => (e.type === "run.paused" && e.interrupts[0]?.id !== both.gate!.id) || e.type === "run.completed",
      );
      const paused = events.at(-1)!;
      expect(paused.type).toBe("run.paused");
      expect(paused.type === "run.paused" && paused.interrupts[0]?.message).toBe("Pay sam (its standing approval ended: please decide)");
      expect(events.some((e) => e.type === "tool.result" && e.content.includes("sam"))).toBe(false);
    } finally {
      own.close();
      await own.idle();
    }
  });

  it("counts and audits each use, also two uses of one grant stored in one write", async () => {
    const grantId = await emailGrant("g-twice", "twice@example.com");
    const [run] = await queryRows<{ id: string; seq: number }>(
      database.db,
      sql`select r.id, (select max(seq) from run_events e where e.run_id = r.id)::int as seq from runs r where r.thread_id = 'g-twice' limit 1`,
    );
    const use = (n: number) => ({ grantId, ownerId: "user-alice", threadId: "g-twice", toolCallId: `twice-${n}` });
    await appendRunEvents(database.db, [
      {
        runId: run!.id,
        events: [1, 2].map((n) => ({
          seq: run!.seq + n,
          type: "grant.used",
          data: { type: "grant.used", grantId, toolCallId: `twice-${n}`, toolName: "send_email", grantedBy: "user-alice" },
        })),
        alongside: { grantUses: [use(1), use(2)] },
      },
    ]);
    const [row] = await queryRows<{ uses: number }>(database.db, sql`select uses from approval_grants where id = ${grantId}`);
    expect(row!.uses).toBe(2);
    const audit = await listAudit(database.db, "tenant-acme", { type: "grant", id: grantId });
    expect(
      audit
        .filter((a) => a.action === "grant.use")
        .map((a) => (a.details as { toolCallId: string }).toolCallId)
        .sort(),
    ).toEqual(["twice-1", "twice-2"]);
  });

  it("lets no call through once its revoke committed, however many lookups race it; a lookup counts nothing", async () => {
    const grantId = await emailGrant("g-race", "jo@example.com");
    const version = (
      await queryRows<{ tool_version: string }>(database.db, sql`select tool_version from approval_grants where id = ${grantId}`)
    )[0]!.tool_version;
    const call = (n: number) =>
      findCoveringGrant(database.db, {
        tenantId: "tenant-acme",
        ownerId: "user-alice",
        threadId: "g-race",
        agentId: "concierge",
        toolName: "send_email",
        toolVersions: [version],
        args: { to: "jo@example.com", body: `race ${n}` },
      });
    const racing = Array.from({ length: 30 }, (_, n) => call(n));
    await runtime.grants.revoke(ALICE, grantId);
    await Promise.all(racing);
    expect(await call(99)).toBeUndefined();
    // Looking a grant up is not using it: nothing is counted or audited until a call's result is stored.
    const [row] = await queryRows<{ uses: number }>(database.db, sql`select uses from approval_grants where id = ${grantId}`);
    expect(row!.uses).toBe(0);
    const audit = await listAudit(database.db, "tenant-acme", { type: "grant", id: grantId });
    expect(audit.filter((a) => a.action === "grant.use")).toEqual([]);
  });
});
