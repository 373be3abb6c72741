/**
 * Signed one-time decision links: minted per approver into the `pause.requested` message of an
 * approvers' gate, opened only by their approver (signed in), deciding once through the coordinator
 * (`via: "link"`) under every rule of any other answer.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory, type Context } from "@/server/api/trpc";
import type { Harbor } from "@/server/harbor";
import { findRun } from "@/server/db/queries/runs";
import { log } from "@/server/log";
import type { DecisionLink, VerifiedIdentity, InterruptView, Runtime } from "@/server/runtime";
import { decisionLinkId, decisionLinkKey, signDecisionLink, verifyDecisionLink } from "@/server/runtime/pause/decision-links";
import { resumeTokenKey, signResumeToken } from "@/server/runtime/pause/resume-token";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, BOB, CAROL, drain, MALLORY, started, TEST_SECRET, testRuntime, watchUntil } from "../../../helpers/runtime";
import { codeOf } from "../../../helpers/trpc-errors";
import { eventually, startWebhookReceiver, type WebhookReceiver } from "../../../helpers/webhook-receiver";

const PUBLIC_URL = "https://harbor.example.com";
const FAST = { allowLocal: true, pollMs: 50, timeoutMs: 2_000, retryScheduleMs: [100, 100, 100] };
const createCaller = createCallerFactory(appRouter);
const tokenOf = (url: string) => url.slice(`${PUBLIC_URL}/decide/`.length);

let counter = 0;

describe.each(testBackends())("decision links on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let receiver: WebhookReceiver;
  const as = (identity: VerifiedIdentity) =>
    createCaller({ harbor: { runtime } as unknown as Harbor, identity, requestId: "req-links", log } satisfies Context).decisionLinks;

  beforeAll(async () => {
    runtime = testRuntime(database.db, { webhooks: FAST, publicUrl: PUBLIC_URL });
    await runtime.start();
    receiver = await startWebhookReceiver();
    const hook = await runtime.webhooks.create(CAROL, { url: receiver.url, events: ["pause.requested", "pause.resolved"] });
    receiver.secret = hook.secret;
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await receiver.close();
  });

  /** Alice asks for a transfer; returns its run and gate. */
  async function transfer(amount: number, on: Runtime = runtime): Promise<{ runId: string; gate: InterruptView }> {
    const threadId = `dl-${++counter}`;
    const run = started(
      await on.startRun(ALICE, {
        agentId: "concierge",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: `transfer ${amount} EUR to ACCT-${counter}` }],
      }),
    );
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error(`expected a gate, got ${last.type}`);
    return { runId: run.runId, gate: last.interrupts[0]! };
  }

  /** The decision links the webhook received for a gate, by approver. */
  async function linksOf(interactionId: string): Promise<Map<string, DecisionLink>> {
    const message = await eventually(() =>
      receiver.received.find((r) => r.payload.type === "pause.requested" && r.payload.data.interactionId === interactionId),
    );
    expect(message.verified).toBe(true);
    return new Map((message.payload.data.decisionLinks as DecisionLink[]).map((l) => [l.userId, l]));
  }

  const audit = (interactionId: string) =>
    queryRows<{ action: string; actor_id: string; outcome: string; details: Record<string, unknown> }>(
      database.db,
      sql`select action, actor_id, outcome, details from audit_log where subject_id = ${interactionId} order by id`,
    );

  it("puts a pair of links per eligible approver in pause.requested — never the requester's, never the arguments — and keeps none", async () => {
    const { gate } = await transfer(9);
    const links = await linksOf(gate.id);
    expect([...links.keys()].sort()).toEqual([BOB.userId, CAROL.userId]);
    const bob = links.get(BOB.userId)!;
    expect(bob).toEqual({
      userId: BOB.userId,
      name: "Bob",
      email: "bob@acme.test",
      approve: expect.stringMatching(/^https:\/\/harbor\.example\.com\/decide\/[\w-]+\.[\w-]+\.[\w-]+$/),
      reject: expect.stringMatching(/^https:\/\/harbor\.example\.com\/decide\/[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    const message = receiver.received.find((r) => r.payload.data.interactionId === gate.id)!;
    expect(message.body).not.toContain(`ACCT-${counter}`);
    expect(message.body).not.toContain('"amount"');

    // The token names the gate, the tenant, the approver and the decision, and expires with the gate.
    const verified = await verifyDecisionLink(decisionLinkKey(TEST_SECRET), tokenOf(bob.approve));
    expect(verified).toEqual({
      ok: true,
      claims: {
        interactionId: gate.id,
        tenantId: "tenant-acme",
        userId: BOB.userId,
        decision: "approve",
        jti: decisionLinkId(decisionLinkKey(TEST_SECRET), gate.id, BOB.userId),
        expiresAt: new Date(Math.ceil(gate.expiresAt / 1000) * 1000),
      },
    });
    const reject = await verifyDecisionLink(decisionLinkKey(TEST_SECRET), tokenOf(bob.reject));
    expect(reject.ok && reject.claims.decision).toBe("reject");
    expect(reject.ok && verified.ok && reject.claims.jti === verified.claims.jti).toBe(true);

    // The delivery log keeps the message as stored: the links were minted for the POST alone.
    const [hook] = await runtime.webhooks.list(CAROL);
    const logged = (await runtime.webhooks.deliveries(CAROL, hook!.id)).find(
      (d) => (d.payload.data as { interactionId: string }).interactionId === gate.id,
    );
    expect(JSON.stringify(logged?.payload)).not.toContain("decide/");
    expect(await queryRows(database.db, sql`select * from decision_link_uses where interaction_id = ${gate.id}`)).toEqual([]);
  });

  it("shows the link to its approver without deciding; refuses anyone else and anything forged, changing nothing", async () => {
    const { runId, gate } = await transfer(11);
    const bob = (await linksOf(gate.id)).get(BOB.userId)!;
    const token = tokenOf(bob.approve);

    const seen = await as(BOB).get({ token });
    expect(seen).toMatchObject({ state: "open", decision: "approve", usedAt: null });
    if (!("interaction" in seen)) throw new Error("expected the request");
    expect(seen.interaction).toMatchObject({
      interactionId: gate.id,
      status: "pending",
      tool: { name: "transfer_funds", args: { amount: 11, currency: "EUR" } },
      requester: { id: ALICE.userId, name: "Alice" },
    });
    // Opening it twice is still opening it: nothing was decided.
    expect((await as(BOB).get({ token })).state).toBe("open");

    // Carol is an approver too, but this is Bob's link; Alice asked; Mallory is another tenant.
    for (const who of [CAROL, ALICE, MALLORY]) {
      expect(await as(who).get({ token })).toEqual({ state: "not_yours" });
      expect(await codeOf(as(who).decide({ token }))).toBe("FORBIDDEN");
    }
    // A changed claim breaks the signature; a resume token (another key) is no decision link.
    const [head, body, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<string, unknown>;
    const forged = [head, Buffer.from(JSON.stringify({ ...claims, uid: CAROL.userId })).toString("base64url"), signature].join(".");
    const resumeToken = await signResumeToken(resumeTokenKey(TEST_SECRET), {
      interactionId: gate.id,
      tenantId: "tenant-acme",
      userId: CAROL.userId,
      threadId: "x",
      expiresAt: new Date(gate.expiresAt),
    });
    const otherKey = await signDecisionLink(decisionLinkKey("another-secret-another-secret"), {
      interactionId: gate.id,
      tenantId: "tenant-acme",
      userId: CAROL.userId,
      decision: "approve",
      jti: "x",
      expiresAt: new Date(gate.expiresAt),
    });
    for (const bad of [forged, resumeToken, otherKey, "not-a-token", token.slice(0, -4)]) {
      expect(await as(CAROL).get({ token: bad })).toEqual({ state: "invalid" });
      expect(await codeOf(as(CAROL).decide({ token: bad }))).toBe("FORBIDDEN");
    }
    expect((await runtime.interactions.get(BOB, gate.id)).status).toBe("pending");
    expect((await findRun(database.db, runId))?.status).toBe("paused");
    expect(await queryRows(database.db, sql`select * from decision_link_uses where interaction_id = ${gate.id}`)).toEqual([]);
  });

  it("approves once through the coordinator, audited via the link; a replay or the pair's other link is refused", async () => {
    const { runId, gate } = await transfer(12);
    const bob = (await linksOf(gate.id)).get(BOB.userId)!;
    const token = tokenOf(bob.approve);

    // Two clicks at once: one decides, the other is told the link was used.
    const [first, second] = await Promise.allSettled([as(BOB).decide({ token }), as(BOB).decide({ token })]);
    const outcomes = [first, second].map((r) => (r.status === "fulfilled" ? r.value.outcome : (r.reason as { code: string }).code));
    expect(outcomes.sort()).toEqual(["CONFLICT", "approved"]);
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await findRun(database.db, runId))?.status).toBe("completed");
    const outbox = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from outbox where run_id = ${runId}`);
    expect(outbox[0]!.n).toBe(1);

    expect(await codeOf(as(BOB).decide({ token }))).toBe("CONFLICT");
    await expect(runtime.decisionLinks.decide(BOB, token)).rejects.toMatchObject({ code: "LINK_USED" });
    await expect(runtime.decisionLinks.decide(BOB, tokenOf(bob.reject))).rejects.toMatchObject({ code: "LINK_USED" });
    expect(await as(BOB).get({ token })).toMatchObject({
      state: "used",
      decision: "approve",
      usedAt: expect.any(String),
      interaction: { status: "resolved", resolvedBy: { id: BOB.userId, name: "Bob" } },
    });
    // Carol's own link now says who decided.
    const carol = (await linksOf(gate.id)).get(CAROL.userId)!;
    expect(await as(CAROL).get({ token: tokenOf(carol.reject) })).toMatchObject({
      state: "decided",
      interaction: { status: "resolved", resolvedBy: { id: BOB.userId } },
    });
    expect(await codeOf(as(CAROL).decide({ token: tokenOf(carol.reject) }))).toBe("CONFLICT");
    await expect(runtime.decisionLinks.decide(CAROL, tokenOf(carol.reject))).rejects.toMatchObject({ code: "ALREADY_RESOLVED" });

    const rows = await audit(gate.id);
    expect(rows.filter((r) => r.action === "interaction.resolve")).toEqual([
      expect.objectContaining({ actor_id: BOB.userId, outcome: "resolved", details: expect.objectContaining({ via: "link" }) }),
    ]);
    expect(rows.filter((r) => r.action === "interaction.link_used")).toEqual([
      expect.objectContaining({ actor_id: BOB.userId, outcome: "approved", details: expect.objectContaining({ decision: "approve" }) }),
    ]);
    // A refused use gave its link back: Carol's reject link is still unused (and still refused by the coordinator).
    expect(await queryRows(database.db, sql`select user_id from decision_link_uses where interaction_id = ${gate.id}`)).toEqual([
      { user_id: BOB.userId },
    ]);
  });

  it("rejects with a reject link: the gated call never runs", async () => {
    const { runId, gate } = await transfer(13);
    const bob = (await linksOf(gate.id)).get(BOB.userId)!;
    expect(await as(BOB).get({ token: tokenOf(bob.reject) })).toMatchObject({ state: "open", decision: "reject" });
    expect(await as(BOB).decide({ token: tokenOf(bob.reject), reason: "wrong account" })).toMatchObject({ outcome: "rejected" });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await findRun(database.db, runId))?.status).toBe("rejected");
    expect(await runtime.interactions.get(ALICE, gate.id)).toMatchObject({
      status: "rejected",
      decision: { approved: false, reason: "wrong account" },
      resolvedBy: { id: BOB.userId },
    });
    const outbox = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from outbox where run_id = ${runId}`);
    expect(outbox[0]!.n).toBe(0);
  });

  it("counts a link's approval as one vote on a quorum gate; the second approver's link completes it", async () => {
    const { runId, gate } = await transfer(20_000);
    expect(gate.quorum).toBe(2);
    const links = await linksOf(gate.id);
    expect(await as(BOB).decide({ token: tokenOf(links.get(BOB.userId)!.approve) })).toEqual({ outcome: "voted", continued: [] });
    expect(await runtime.interactions.get(CAROL, gate.id)).toMatchObject({
      status: "pending",
      votes: [{ by: BOB.userId, approved: true }],
    });
    expect((await findRun(database.db, runId))?.status).toBe("paused");
    // Bob's vote is in: his pair is used; an inbox vote would be refused the same way.
    await expect(runtime.decisionLinks.decide(BOB, tokenOf(links.get(BOB.userId)!.reject))).rejects.toMatchObject({ code: "LINK_USED" });

    expect(await as(CAROL).decide({ token: tokenOf(links.get(CAROL.userId)!.approve) })).toEqual({
      outcome: "approved",
      continued: [runId],
    });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await findRun(database.db, runId))?.status).toBe("completed");
    const rows = await audit(gate.id);
    expect(rows.filter((r) => r.action === "interaction.vote").map((r) => r.actor_id)).toEqual([BOB.userId, CAROL.userId]);
    expect(rows.filter((r) => r.action === "interaction.link_used").map((r) => [r.actor_id, r.outcome])).toEqual([
      [BOB.userId, "voted"],
      [CAROL.userId, "approved"],
    ]);
  });

  it("expires with its gate: an expired link or gate decides nothing", async () => {
    const shortLived = testRuntime(database.db, { approvalTtlMs: 400, sweepIntervalMs: 60_000, publicUrl: PUBLIC_URL });
    const linksHere = (id: string) => shortLived.decisionLinks.mint(id);
    try {
      const { runId, gate } = await transfer(14, shortLived);
      const bob = (await linksHere(gate.id)).find((l) => l.userId === BOB.userId)!;
      const token = tokenOf(bob.approve);
      expect((await shortLived.decisionLinks.inspect(BOB, token)).state).toBe("open");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // The token is past its expiry (the gate's): still known as Bob's, and expired.
      expect((await shortLived.decisionLinks.inspect(BOB, token)).state).toBe("expired");
      expect((await shortLived.decisionLinks.inspect(CAROL, token)).state).toBe("not_yours");
      await expect(shortLived.decisionLinks.decide(BOB, token)).rejects.toMatchObject({ code: "EXPIRED" });
      await expect(shortLived.decisionLinks.decide(CAROL, token)).rejects.toMatchObject({ code: "FORBIDDEN" });
      expect((await findRun(database.db, runId))?.status).toBe("paused");
      expect(await queryRows(database.db, sql`select * from decision_link_uses where interaction_id = ${gate.id}`)).toEqual([]);
      // Once expired, no links are minted for it.
      expect(await linksHere(gate.id)).toEqual([]);
    } finally {
      shortLived.close();
      await shortLived.idle();
    }

    // A link whose gate expired though the token had not: the coordinator ends the gate, and the link says so.
    const { runId, gate } = await transfer(15);
    const key = decisionLinkKey(TEST_SECRET);
    await database.db.execute(sql`update interactions set expires_at = now() - interval '1 second' where id = ${gate.id}`);
    const token = await signDecisionLink(key, {
      interactionId: gate.id,
      tenantId: "tenant-acme",
      userId: BOB.userId,
      decision: "approve",
      jti: decisionLinkId(key, gate.id, BOB.userId),
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect((await runtime.decisionLinks.inspect(BOB, token)).state).toBe("expired");
    await expect(runtime.decisionLinks.decide(BOB, token)).rejects.toMatchObject({ code: "EXPIRED" });
    await watchUntil(runtime, runId, (e) => e.type === "run.completed");
    expect((await findRun(database.db, runId))?.status).toBe("expired");
    expect((await runtime.decisionLinks.inspect(BOB, token)).state).toBe("expired");
  });

  it("mints nothing for a gate its requester answers, or without a public URL", async () => {
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId: "dl-email",
        transportRunId: "dl-email",
        messages: [{ id: "dl-email-m", role: "user", content: "send an email to x@example.com saying hi" }],
      }),
    );
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a gate");
    const id = last.interrupts[0]!.id;
    const message = await eventually(() =>
      receiver.received.find((r) => r.payload.type === "pause.requested" && r.payload.data.interactionId === id),
    );
    expect(message.payload.data).not.toHaveProperty("decisionLinks");
    expect(await runtime.decisionLinks.mint(id)).toEqual([]);
    await runtime.interactions.decide(ALICE, id, false);

    const noUrl = testRuntime(database.db);
    try {
      expect(noUrl.decisionLinks.enabled).toBe(false);
      const payload = { type: "pause.requested", data: { interactionId: "x", kind: "approval", policy: "approvers" } };
      expect(await noUrl.decisionLinks.prepare(payload)).toBe(payload);
    } finally {
      noUrl.close();
      await noUrl.idle();
    }
  });
});
