import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { appRouter } from "@/server/api/root";
import { createCallerFactory, type Context } from "@/server/api/trpc";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import type { Harbor } from "@/server/harbor";
import { log } from "@/server/log";
import type { VerifiedIdentity, InterruptView, Runtime, StartRunRequest } from "@/server/runtime";
import { createWebhookWorker } from "@/server/runtime/notify/webhook-delivery";
import { webhookService } from "@/server/runtime/notify/webhooks";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { drain, started, TEST_SECRET, testRuntime, watchUntil } from "../../../helpers/runtime";
import { eventually, startWebhookReceiver, verifyStandardWebhook, type WebhookReceiver } from "../../../helpers/webhook-receiver";
import { codeOf } from "../../../helpers/trpc-errors";

const alice: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const carol: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };
const mallory: VerifiedIdentity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

const ALL = ["pause.requested", "pause.reminder", "pause.escalated", "pause.resolved", "pause.expired"] as const;
const FAST = { allowLocal: true, pollMs: 50, timeoutMs: 2_000, retryScheduleMs: [100, 100, 100] };

let counter = 0;
const request = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `wh-${++counter}`,
  messages: text ? [{ id: `whm-${counter}`, role: "user", content: text }] : [],
  resume,
});

const createCaller = createCallerFactory(appRouter);

describe.each(testBackends())("outgoing webhooks on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let acme: WebhookReceiver;
  let globex: WebhookReceiver;
  let acmeHook: string;
  const as = (identity: VerifiedIdentity) =>
    createCaller({ harbor: { runtime } as unknown as Harbor, identity, requestId: "req-webhooks", log } satisfies Context).webhooks;

  beforeAll(async () => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 40 }), webhooks: FAST });
    await runtime.start();
    acme = await startWebhookReceiver();
    globex = await startWebhookReceiver();
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await acme.close();
    await globex.close();
  });

  async function park(who: VerifiedIdentity, threadId: string, text: string): Promise<{ runId: string; interrupts: InterruptView[] }> {
    const run = started(await runtime.startRun(who, request(threadId, text)));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error(`expected the run to park, it ended with ${JSON.stringify(last)}`);
    return { runId: run.runId, interrupts: last.interrupts };
  }

  type LogEntry = Awaited<ReturnType<Runtime["webhooks"]["deliveries"]>>[number];
  /** The delivery log entry of `webhookId` that `match`es, once there is one. */
  async function logEntry(webhookId: string, match: (entry: LogEntry) => boolean): Promise<LogEntry> {
    for (let i = 0; i < 200; i++) {
      const found = (await as(carol).deliveries({ webhookId })).find(match);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("no such delivery log entry");
  }

  const received = (receiver: WebhookReceiver, type: string, interactionId: string) =>
    receiver.received.filter((r) => r.payload.type === type && r.payload.data.interactionId === interactionId);

  it("lets only admins manage webhooks, and refuses URLs that are not https or point inside the network", async () => {
    expect(await codeOf(as(alice).create({ url: "https://hooks.example.com/x", events: ["pause.requested"] }))).toBe("FORBIDDEN");
    expect(await codeOf(as(bob).create({ url: "https://hooks.example.com/x", events: ["pause.requested"] }))).toBe("FORBIDDEN");
    expect(await codeOf(as(alice).list())).toBe("FORBIDDEN");
    for (const url of [
      "http://hooks.example.com/x",
      "https://10.0.0.7/x",
      "https://192.168.1.1/x",
      "https://169.254.169.254/latest/meta-data",
      "https://[fd00::1]/x",
      "https://[::ffff:10.0.0.1]/x",
      "https://user:pw@hooks.example.com/x",
      "ftp://hooks.example.com/x",
    ]) {
      expect(await codeOf(as(carol).create({ url, events: ["pause.requested"] })), url).toBe("BAD_REQUEST");
    }
    expect(await codeOf(as(carol).create({ url: "https://hooks.example.com/x", events: [] }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(carol).create({ url: "https://hooks.example.com/x", events: ["run.started" as "pause.requested"] }))).toBe(
      "BAD_REQUEST",
    );
    // Without the local setting, this machine is off limits too.
    const strict = webhookService(database.db, TEST_SECRET);
    for (const url of ["http://127.0.0.1:9/x", "https://127.0.0.1/x", "https://localhost/x", "https://[::1]/x"]) {
      await expect(strict.create(carol, { url, events: ["pause.requested"] }), url).rejects.toMatchObject({ code: "INVALID_INPUT" });
    }
    expect(await as(carol).list()).toEqual([]);
  });

  it("creates a webhook with a Standard Webhooks secret shown once", async () => {
    const created = await as(carol).create({ url: acme.url, events: [...ALL] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(created.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    acme.secret = created.secret;
    acmeHook = created.id;
    const listed = await as(carol).list();
    expect(listed).toEqual([
      { id: created.id, url: acme.url, events: [...ALL], createdBy: "user-carol", createdByName: "Carol", createdAt: created.createdAt },
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.secret.slice(6));
    const stored = await queryRows<{ secret_sealed: string }>(
      database.db,
      sql`select secret_sealed from webhooks where id = ${created.id}`,
    );
    expect(stored[0]!.secret_sealed).not.toContain(created.secret.slice(6));

    const other = await as(mallory).create({ url: globex.url, events: [...ALL] });
    globex.secret = other.secret;
    expect((await as(mallory).list()).map((w) => w.id)).toEqual([other.id]);
    expect(await codeOf(as(carol).deliveries({ webhookId: other.id }))).toBe("NOT_FOUND");
    expect(await codeOf(as(carol).delete({ webhookId: other.id }))).toBe("NOT_FOUND");
  });

  it("names a thread by the id its client chose, even when another tenant held that id first", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const hook = await as(carol).create({ url: receiver.url, events: ["pause.requested"] });
      receiver.secret = hook.secret;
      await park(mallory, "wh-taken-first", "send an email to g@example.com saying hi");
      const { interrupts } = await park(alice, "wh-taken-first", "send an email to a@example.com saying hi");
      const message = await eventually(() => receiver.received.find((r) => r.payload.data.interactionId === interrupts[0]!.id));
      expect(message.payload.data.threadId).toBe("wh-taken-first");
    } finally {
      await receiver.close();
    }
  });

  it("delivers pause.requested and pause.resolved for an owner's approval, signed, without the tool's arguments", async () => {
    const { runId, interrupts } = await park(alice, "wh-email", "send an email to x@example.com saying hi");
    const gate = interrupts[0]!;
    const [requested] = await eventually(
      () => received(acme, "pause.requested", gate.id).length > 0 && received(acme, "pause.requested", gate.id),
    );
    expect(requested!.verified).toBe(true);
    expect(requested!.id).toMatch(/^msg_/);
    expect(requested!.payload).toEqual({
      type: "pause.requested",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        interactionId: gate.id,
        runId,
        threadId: "wh-email",
        kind: "approval",
        reason: "hitl",
        policy: "owner",
        status: "pending",
        toolName: "send_email",
        expiresAt: new Date(gate.expiresAt).toISOString(),
      },
    });
    expect(requested!.body).not.toContain("x@example.com");
    // The verifier is real: a changed body or another secret does not pass.
    const headers = { id: requested!.id, timestamp: requested!.timestamp, signature: requested!.signature };
    expect(verifyStandardWebhook(acme.secret!, headers, requested!.body.replace("pending", "resolved"))).toBe(false);
    expect(verifyStandardWebhook(globex.secret!, headers, requested!.body)).toBe(false);
    expect(verifyStandardWebhook(acme.secret!, headers, requested!.body, Math.floor(Date.now() / 1000) + 3600)).toBe(false);

    await drain(
      started(
        await runtime.startRun(
          alice,
          request("wh-email", undefined, [{ interactionId: gate.id, status: "resolved", payload: { approved: true } }]),
        ),
      ).events,
    );
    const [resolved] = await eventually(
      () => received(acme, "pause.resolved", gate.id).length > 0 && received(acme, "pause.resolved", gate.id),
    );
    expect(resolved!.verified).toBe(true);
    expect(resolved!.id).not.toBe(requested!.id);
    expect(resolved!.payload.data).toMatchObject({ interactionId: gate.id, status: "resolved", resolvedAt: expect.any(String) });
    // Another tenant's webhook hears nothing of this one.
    expect(globex.received.filter((r) => r.payload.data.interactionId === gate.id)).toEqual([]);
  });

  it("delivers an approvers' gate decided by another approver, and a rejection as pause.resolved", async () => {
    const { interrupts } = await park(alice, "wh-transfer", "transfer 9 EUR to X-9");
    const gate = interrupts[0]!;
    const [requested] = await eventually(
      () => received(acme, "pause.requested", gate.id).length > 0 && received(acme, "pause.requested", gate.id),
    );
    expect(requested!.payload.data).toMatchObject({ kind: "approval", policy: "approvers", toolName: "transfer_funds", status: "pending" });
    expect(requested!.body).not.toContain("X-9");
    await runtime.interactions.resolve(bob, { interactionId: gate.id, status: "resolved", payload: { approved: false, reason: "no" } });
    const [resolved] = await eventually(
      () => received(acme, "pause.resolved", gate.id).length > 0 && received(acme, "pause.resolved", gate.id),
    );
    expect(resolved!.verified).toBe(true);
    expect(resolved!.payload.data).toMatchObject({ status: "rejected" });
    expect(resolved!.body).not.toContain('"no"');
  });

  it("delivers pause.expired when a gate expires", async () => {
    const shortLived = testRuntime(database.db, { approvalTtlMs: 50, sweepIntervalMs: 30, webhooks: FAST });
    try {
      const run = started(await shortLived.startRun(alice, request("wh-expire", "send an email to late@example.com saying hi")));
      const last = (await drain(run.events)).at(-1)!.event;
      if (last.type !== "run.paused") throw new Error("expected a pause");
      const id = last.interrupts[0]!.id;
      const [expired] = await eventually(() => received(acme, "pause.expired", id).length > 0 && received(acme, "pause.expired", id));
      expect(expired!.verified).toBe(true);
      expect(expired!.payload.data).toMatchObject({ interactionId: id, runId: run.runId, status: "expired" });
      expect(received(acme, "pause.resolved", id)).toEqual([]);
    } finally {
      shortLived.close();
      await shortLived.idle();
    }
  });

  it("tells a transfer's escalation and reminder, and names the safe default its expiry applied", async () => {
    const deadlines = testRuntime(database.db, { approvalTtlMs: 2_000, sweepIntervalMs: 30, webhooks: FAST });
    try {
      const run = started(await deadlines.startRun(alice, request("wh-deadline", "transfer 15 EUR to WH-DEADLINE")));
      const last = (await drain(run.events)).at(-1)!.event;
      if (last.type !== "run.paused") throw new Error("expected a gate");
      const id = last.interrupts[0]!.id;
      const [expired] = await eventually(() => received(acme, "pause.expired", id).length > 0 && received(acme, "pause.expired", id));
      const [escalated] = received(acme, "pause.escalated", id);
      const [reminded] = received(acme, "pause.reminder", id);
      for (const message of [escalated, reminded, expired]) expect(message?.verified).toBe(true);
      expect(escalated!.payload.data).toMatchObject({ interactionId: id, status: "pending", escalatedTo: "admins" });
      expect(reminded!.payload.data).toMatchObject({ interactionId: id, status: "pending" });
      expect(expired!.payload.data).toMatchObject({ interactionId: id, status: "expired", onExpiry: "reject" });
      expect(Date.parse(escalated!.payload.timestamp)).toBeLessThanOrEqual(Date.parse(reminded!.payload.timestamp));
      expect(received(acme, "pause.escalated", id)).toHaveLength(1);
      expect(received(acme, "pause.reminder", id)).toHaveLength(1);
    } finally {
      deadlines.close();
      await deadlines.idle();
    }
  });

  it("never puts a private form's value in a payload", async () => {
    const canary = "sk-live-CANARY-0042";
    const { interrupts } = await park(alice, "wh-private", "connect my api key");
    const form = interrupts[0]!;
    await drain(
      started(
        await runtime.startRun(
          alice,
          request("wh-private", undefined, [{ interactionId: form.id, status: "resolved", payload: { apiKey: canary } }]),
        ),
      ).events,
    );
    const [resolved] = await eventually(
      () => received(acme, "pause.resolved", form.id).length > 0 && received(acme, "pause.resolved", form.id),
    );
    expect(received(acme, "pause.requested", form.id)[0]!.payload.data).toMatchObject({
      kind: "private_input",
      toolName: "connect_api_key",
    });
    expect(resolved!.payload.data).toMatchObject({ kind: "private_input", status: "resolved" });
    expect(acme.received.map((r) => r.body).join("\n")).not.toContain(canary);
    const stored = await queryRows<{ payload: unknown }>(database.db, sql`select payload from webhook_deliveries`);
    expect(JSON.stringify(stored)).not.toContain(canary);
  });

  it("tells an operator's pause and its resumption (steering, not a tool)", async () => {
    const run = started(await runtime.startRun(alice, request("wh-operator", "count slowly to 4")));
    await watchUntil(runtime, run.runId, (e) => e.type === "text.delta" && e.delta === "1");
    await runtime.runs.steer(carol, run.runId, { type: "PAUSE" });
    const paused = await watchUntil(runtime, run.runId, (e) => e.type === "run.paused");
    const last = paused.at(-1);
    if (last?.type !== "run.paused") throw new Error("expected an operator pause");
    const id = last.interrupts[0]!.id;
    const [requested] = await eventually(() => received(acme, "pause.requested", id).length > 0 && received(acme, "pause.requested", id));
    expect(requested!.payload.data).toEqual(
      expect.objectContaining({ kind: "operator", reason: "operator", policy: "admins", status: "pending", runId: run.runId }),
    );
    expect(requested!.payload.data).not.toHaveProperty("toolName");
    await runtime.runs.steer(carol, run.runId, { type: "RESUME" });
    const [resolved] = await eventually(() => received(acme, "pause.resolved", id).length > 0 && received(acme, "pause.resolved", id));
    expect(resolved!.verified).toBe(true);
    expect(resolved!.payload.data).toMatchObject({ kind: "operator", status: "resolved" });
    await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
  });

  it("retries after the receiver answers 500 twice, with the same webhook-id, and logs every attempt", async () => {
    acme.failNext(2);
    const { interrupts } = await park(alice, "wh-retry", "send an email to retry@example.com saying hi");
    const gate = interrupts[0]!;
    const tries = await eventually(
      () => received(acme, "pause.requested", gate.id).length >= 3 && received(acme, "pause.requested", gate.id),
    );
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((t) => t.id)).size).toBe(1);
    expect(tries.every((t) => t.verified)).toBe(true);
    const entry = await logEntry(acmeHook, (d) => d.id === tries[0]!.id && d.status !== "pending");
    expect(entry).toMatchObject({ event: "pause.requested", status: "delivered", attempts: 3, lastStatusCode: 204, lastError: null });
    expect(entry.log.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(entry.log[0]!.error).toMatch(/500/);
  });

  it("gives up after the last retry and says so in the delivery log", async () => {
    const down = await startWebhookReceiver();
    down.failAlways(true);
    try {
      const hook = await as(carol).create({ url: down.url, events: ["pause.requested"] });
      const { interrupts } = await park(alice, "wh-down", "send an email to down@example.com saying hi");
      await eventually(() => down.received.length >= 4);
      const failed = await logEntry(hook.id, (d) => d.status === "failed");
      expect(failed).toMatchObject({ status: "failed", attempts: 4, nextAttemptAt: null, lastStatusCode: 500 });
      expect(down.received.every((r) => r.payload.data.interactionId === interrupts[0]!.id)).toBe(true);
      await as(carol).delete({ webhookId: hook.id });
      expect(await codeOf(as(carol).deliveries({ webhookId: hook.id }))).toBe("NOT_FOUND");
    } finally {
      await down.close();
    }
  });
});

describe.each(testBackends())("webhook workers sharing a database on $name", (backend) => {
  const database = useSeededDatabase(backend);

  it("deliver each message exactly once between two workers", async () => {
    const receiver = await startWebhookReceiver();
    receiver.delayMs = 20;
    // On PostgreSQL the second worker has its own connection pool, like another serving process.
    const second: DatabaseHandle | undefined =
      backend.name === "postgres" && database.handle.url
        ? await openDatabase({ engine: "postgres", url: database.handle.url, poolSize: 3 })
        : undefined;
    const workers = [
      createWebhookWorker({ db: database.db, log, instanceId: "worker-1", serverSecret: TEST_SECRET, settings: FAST }),
      createWebhookWorker({ db: (second ?? database.handle).db, log, instanceId: "worker-2", serverSecret: TEST_SECRET, settings: FAST }),
    ];
    try {
      const hook = await webhookService(database.db, TEST_SECRET, FAST).create(carol, { url: receiver.url, events: ["pause.requested"] });
      receiver.secret = hook.secret;
      const count = 60;
      await database.db.execute(sql`
        insert into webhook_deliveries (id, webhook_id, tenant_id, event, payload)
        select 'msg_race_' || n, ${hook.id}, 'tenant-acme', 'pause.requested',
          jsonb_build_object('type', 'pause.requested', 'timestamp', '2026-12-01T00:00:00.000Z', 'data', jsonb_build_object('n', n))
        from generate_series(1, ${count}) n`);
      for (const worker of workers) worker.start();
      await eventually(() => receiver.received.length >= count, 20_000);
      for (const worker of workers) worker.kick("tenant-acme");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(count);
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(count);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      const attempts = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.webhook_id = ${hook.id}`,
      );
      expect(attempts[0]!.n).toBe(count);
      const pending = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${hook.id} and status <> 'delivered'`,
      );
      expect(pending[0]!.n).toBe(0);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await second?.close();
      await receiver.close();
    }
  });
});

describe.each(testBackends())("fair shares of the delivery workers, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  const SLOW = { ...FAST, timeoutMs: 10_000, maxPerTenant: 50, perTenant: 8, perWebhook: 4 };
  const leasedOf = async (tenantId: string) =>
    (
      await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from webhook_deliveries where tenant_id = ${tenantId} and status = 'pending' and lease_until >= now()`,
      )
    )[0]!.n;

  it("sends one tenant's notification at once while another tenant's 40 webhooks never answer", async () => {
    const silent = await startWebhookReceiver();
    silent.delayMs = 60_000;
    const prompt = await startWebhookReceiver();
    const service = webhookService(database.db, TEST_SECRET, SLOW);
    const worker = createWebhookWorker({ db: database.db, log, instanceId: "fair-1", serverSecret: TEST_SECRET, settings: SLOW });
    try {
      for (let i = 0; i < 40; i++) await service.create(mallory, { url: `${silent.url}?n=${i}`, events: ["pause.requested"] });
      const acmeHook = await service.create(carol, { url: prompt.url, events: ["pause.requested"] });
      prompt.secret = acmeHook.secret;
      // Five messages for each of globex's webhooks, due now.
      await database.db.execute(sql`
        insert into webhook_deliveries (id, webhook_id, tenant_id, event, payload)
        select 'msg_stall_' || w.id || '_' || n, w.id, 'tenant-globex', 'pause.requested',
          jsonb_build_object('type', 'pause.requested', 'timestamp', '2026-12-01T00:00:00.000Z', 'data', jsonb_build_object('n', n))
        from webhooks w cross join generate_series(1, 5) n where w.tenant_id = 'tenant-globex'`);
      worker.start();
      await eventually(() => silent.received.length >= 8, 5_000);

      await database.db.execute(sql`
        insert into webhook_deliveries (id, webhook_id, tenant_id, event, payload)
        values ('msg_acme_now', ${acmeHook.id}, 'tenant-acme', 'pause.requested',
          '{"type":"pause.requested","timestamp":"2026-12-01T00:00:00.000Z","data":{"interactionId":"int-now"}}'::jsonb)`);
      const asked = Date.now();
      worker.kick("tenant-acme");
      await eventually(() => prompt.received.length === 1, 5_000);
      // Not after a stalled POST's 10 s timeout: at once.
      expect(Date.now() - asked).toBeLessThan(2_000);
      expect(prompt.received[0]!.verified).toBe(true);
      // globex holds no more than its share of the workers, and no webhook more than its own.
      expect(await leasedOf("tenant-globex")).toBeLessThanOrEqual(8);
      expect(silent.received.length).toBeLessThanOrEqual(8);
    } finally {
      await silent.close();
      await worker.stop();
      await prompt.close();
    }
  });

  it("sends a tenant's other webhook at once while one of its webhooks has a backlog at an endpoint that never answers", async () => {
    const silent = await startWebhookReceiver();
    silent.delayMs = 60_000;
    const prompt = await startWebhookReceiver();
    const service = webhookService(database.db, TEST_SECRET, SLOW);
    const worker = createWebhookWorker({ db: database.db, log, instanceId: "fair-2", serverSecret: TEST_SECRET, settings: SLOW });
    try {
      const stuck = await service.create(carol, { url: `${silent.url}?stuck`, events: ["pause.requested"] });
      const other = await service.create(carol, { url: prompt.url, events: ["pause.requested"] });
      prompt.secret = other.secret;
      await database.db.execute(sql`
        insert into webhook_deliveries (id, webhook_id, tenant_id, event, payload)
        select 'msg_backlog_' || n, ${stuck.id}, 'tenant-acme', 'pause.requested',
          jsonb_build_object('type', 'pause.requested', 'timestamp', '2026-12-01T00:00:00.000Z', 'data', jsonb_build_object('n', n))
        from generate_series(1, 30) n`);
      worker.start();
      await eventually(() => silent.received.length >= 4, 5_000);
      await database.db.execute(sql`
        insert into webhook_deliveries (id, webhook_id, tenant_id, event, payload)
        values ('msg_other_now', ${other.id}, 'tenant-acme', 'pause.requested',
          '{"type":"pause.requested","timestamp":"2026-12-01T00:00:00.000Z","data":{"interactionId":"int-other"}}'::jsonb)`);
      const asked = Date.now();
      worker.kick("tenant-acme");
      await eventually(() => prompt.received.length === 1, 5_000);
      expect(Date.now() - asked).toBeLessThan(2_000);
      // The stuck webhook holds no more than its own share.
      expect(silent.received.length).toBeLessThanOrEqual(4);
    } finally {
      await silent.close();
      await worker.stop();
      await prompt.close();
    }
  });

  it("refuses a tenant's webhook past its cap with QUOTA_EXCEEDED, and writes nothing", async () => {
    const service = webhookService(database.db, TEST_SECRET, { ...FAST, maxPerTenant: 2 });
    const before = (await service.list(carol)).length;
    const capped = webhookService(database.db, TEST_SECRET, { ...FAST, maxPerTenant: before + 1 });
    await capped.create(carol, { url: "http://127.0.0.1:9/one", events: ["pause.requested"] });
    await expect(capped.create(carol, { url: "http://127.0.0.1:9/two", events: ["pause.requested"] })).rejects.toMatchObject({
      code: "QUOTA_EXCEEDED",
      details: { quota: "webhooks", limit: before + 1 },
    });
    expect(await service.list(carol)).toHaveLength(before + 1);
  });
});

describe.each(testBackends())("waking the delivery worker, on $name", (backend) => {
  const statements: string[] = [];
  const database = useSeededDatabase(backend, { onStatement: (text) => statements.push(text) });
  const lookedForDeliveries = () => statements.filter((text) => text.includes("update webhook_deliveries set lease_owner")).length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

  it("wakes for a change of a tenant with webhooks, registered here, and not for one without", async () => {
    // The periodic look is an hour away: only kicks look for deliveries in this test.
    const worker = createWebhookWorker({
      db: database.db,
      log,
      instanceId: "worker-kicked",
      serverSecret: TEST_SECRET,
      settings: { ...FAST, pollMs: 3_600_000 },
    });
    try {
      worker.start();
      await eventually(() => lookedForDeliveries() === 1, 5_000);
      worker.kick("tenant-acme");
      worker.kick("tenant-globex");
      await settle();
      expect(lookedForDeliveries()).toBe(1);
      await webhookService(database.db, TEST_SECRET, FAST, worker.registered).create(carol, {
        url: "http://127.0.0.1:9/hook",
        events: ["pause.requested"],
      });
      worker.kick("tenant-globex");
      await settle();
      expect(lookedForDeliveries()).toBe(1);
      worker.kick("tenant-acme");
      await eventually(() => lookedForDeliveries() === 2, 5_000);
    } finally {
      await worker.stop();
    }
  });
});

describe.each(testBackends())("a pause its process left behind, on $name", (backend) => {
  const database = useSeededDatabase(backend);

  it("is told as pause.expired with status lost once a restarted instance closes it", async () => {
    const receiver = await startWebhookReceiver();
    const earlier = testRuntime(database.db, { webhooks: FAST });
    let restarted: Runtime | undefined;
    try {
      receiver.secret = (await earlier.webhooks.create(carol, { url: receiver.url, events: ["pause.expired"] })).secret;
      const run = started(await earlier.startRun(alice, request("wh-lost", "send an email to gone@example.com saying hi")));
      const last = (await drain(run.events)).at(-1)!.event;
      if (last.type !== "run.paused") throw new Error("expected a pause");
      earlier.close();
      await earlier.idle();

      restarted = testRuntime(database.db, { webhooks: FAST });
      await restarted.start();
      const id = last.interrupts[0]!.id;
      const [lost] = await eventually(() => receiver.received.some((r) => r.payload.data.interactionId === id) && receiver.received);
      expect(lost!.verified).toBe(true);
      expect(lost!.payload).toMatchObject({ type: "pause.expired", data: { interactionId: id, runId: run.runId, status: "lost" } });
      // Subscribed to pause.expired only: the request itself was never sent.
      expect(receiver.received).toHaveLength(1);
    } finally {
      restarted?.close();
      await restarted?.idle();
      await receiver.close();
    }
  });
});

describe.each(testBackends())("webhook changes in the audit log, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  const hooks = () => webhookService(database.db, TEST_SECRET, FAST);

  interface AuditRow {
    actor_id: string | null;
    action: string;
    subject_type: string;
    subject_id: string;
    outcome: string;
    details: Record<string, unknown>;
    hash: string;
    row: string;
  }
  const auditOf = (subjectId: string) =>
    queryRows<AuditRow>(
      database.db,
      sql`select actor_id, action, subject_type, subject_id, outcome, details, hash, to_jsonb(a)::text as row
          from audit_log a where subject_type = 'webhook' and subject_id = ${subjectId} order by seq`,
    );
  const webhookAudits = async () =>
    (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from audit_log where action like 'webhook.%'`))[0]!.n;

  it("records who created and deleted a webhook, its host and events, and never its secret", async () => {
    const created = await hooks().create(carol, {
      url: "https://hooks.example.com:8443/harbor/in?token=query-secret",
      events: ["pause.resolved", "pause.requested"],
    });
    const [made] = await auditOf(created.id);
    expect(made).toMatchObject({
      actor_id: "user-carol",
      action: "webhook.create",
      subject_type: "webhook",
      subject_id: created.id,
      outcome: "created",
      details: { host: "hooks.example.com:8443", events: ["pause.requested", "pause.resolved"] },
    });
    // Chained like every audit row; neither the secret nor the URL's path or query is in it.
    expect(made!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(made!.row).not.toContain(created.secret.slice("whsec_".length));
    expect(made!.row).not.toContain("query-secret");
    expect(made!.row).not.toContain("/harbor/in");

    await hooks().delete(carol, created.id);
    const rows = await auditOf(created.id);
    expect(rows.map((r) => r.action)).toEqual(["webhook.create", "webhook.delete"]);
    expect(rows[1]).toMatchObject({
      actor_id: "user-carol",
      subject_id: created.id,
      outcome: "deleted",
      details: { host: "hooks.example.com:8443", events: ["pause.requested", "pause.resolved"] },
    });
    expect(rows[1]!.row).not.toContain(created.secret.slice("whsec_".length));
  });

  it("records nothing for a refused change", async () => {
    const before = await webhookAudits();
    await expect(hooks().create(alice, { url: "https://hooks.example.com/x", events: ["pause.requested"] })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(hooks().create(carol, { url: "https://10.0.0.1/x", events: ["pause.requested"] })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    const globex = await hooks().create(mallory, { url: "https://hooks.globex.test/x", events: ["pause.expired"] });
    // Another tenant's webhook is not carol's to delete: not found, and nothing written.
    await expect(hooks().delete(carol, globex.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(hooks().delete(carol, "wh_unknown")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await webhookAudits()).toBe(before + 1);
    expect((await auditOf(globex.id)).map((r) => [r.action, r.actor_id])).toEqual([["webhook.create", "user-mallory"]]);
    // Each tenant's chain holds its own webhook rows only.
    const acmeRows = await queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from audit_log where tenant_id = 'tenant-acme' and subject_id = ${globex.id}`,
    );
    expect(acmeRows[0]!.n).toBe(0);
  });

  it("writes the change and its audit row together: when the audit row cannot be written, nothing changes", async () => {
    const kept = await hooks().create(carol, { url: "https://hooks.example.com/kept", events: ["pause.requested"] });
    const count = async () => (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from webhooks`))[0]!.n;
    const webhooksBefore = await count();
    const auditsBefore = await webhookAudits();
    // A stand-in for an audit insert that fails (a full disk, a broken chain): the webhook change must fail with it.
    await database.db.execute(sql`
      create function refuse_webhook_audit() returns trigger language plpgsql as $$
      begin
        if new.action like 'webhook.%' then raise exception 'audit refused'; end if;
        return new;
      end $$`);
    await database.db.execute(sql`
      create trigger refuse_webhook_audit before insert on audit_log for each row execute function refuse_webhook_audit()`);
    try {
      await expect(hooks().create(carol, { url: "https://hooks.example.com/lost", events: ["pause.requested"] })).rejects.toThrow();
      await expect(hooks().delete(carol, kept.id)).rejects.toThrow();
    } finally {
      await database.db.execute(sql`drop trigger refuse_webhook_audit on audit_log`);
      await database.db.execute(sql`drop function refuse_webhook_audit()`);
    }
    expect(await count()).toBe(webhooksBefore);
    expect((await hooks().list(carol)).some((w) => w.id === kept.id)).toBe(true);
    expect(await webhookAudits()).toBe(auditsBefore);
  });
});
