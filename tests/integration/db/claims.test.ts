/**
 * Several callers' claims in one statement (the claim's group commit): each caller wins all of its
 * gates or none, on its own, and a run answered by two callers at once is continued by one.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { claimForMany, type ClaimRequest } from "@/server/db/queries/interactions";
import { appendRunEvents, beginRun } from "@/server/db/queries/run-writes";
import { findRun } from "@/server/db/queries/runs";
import { createSession, revokeSession } from "@/server/db/queries/sessions";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

const ACME = "tenant-acme";

/** A run of `owner` parked on `gates` (owner-answered approvals). */
async function parkedRun(h: { db: DatabaseHandle["db"] }, runId: string, gates: readonly string[], owner = "user-alice", tenantId = ACME) {
  await beginRun(h.db, {
    thread: { id: `t-${runId}`, tenantId, ownerId: owner, title: "t" },
    messages: [{ id: `${runId}-m`, role: "user", content: "go" }],
    run: { id: runId, agentId: "concierge", transportRunId: runId, instanceId: "i-test" },
    events: [{ seq: 1, type: "run.started", data: { type: "run.started" as const, runId, threadId: `t-${runId}`, agentId: "concierge" } }],
  });
  await appendRunEvents(h.db, [
    {
      runId,
      events: [{ seq: 2, type: "run.paused", data: { type: "run.paused" as const, interrupts: [] } }],
      alongside: {
        run: { status: "paused", pauseReason: "hitl", checkpoint: { step: 1, calls: [] } },
        interactions: gates.map((id) => ({
          id,
          tenantId,
          threadId: `t-${runId}`,
          ownerId: owner,
          kind: "approval" as const,
          pauseReason: "hitl" as const,
          policy: "owner" as const,
          toolName: "send_email",
          message: "Send it?",
          instanceId: "i-test",
          expiresAt: new Date(Date.now() + 60_000),
        })),
      },
    },
  ]);
}

const approve = (id: string) => ({ id, status: "resolved" as const, decision: { approved: true } });
const by = (userId: string, tenantId = ACME) => ({ tenantId, userId, via: "test" });
const grant = (id: string, interactionId: string) => ({
  id,
  interactionId,
  scope: "thread" as const,
  agentId: "concierge",
  toolVersion: "1",
  bounds: {},
  hours: 1,
});

async function statusOf(h: { db: DatabaseHandle["db"] }, id: string): Promise<string | undefined> {
  return (await queryRows<{ status: string }>(h.db, sql`select status from interactions where id = ${id}`))[0]?.status;
}

describe.each(testBackends())("claims of several callers in one statement, on $name", (backend) => {
  const h = useSeededDatabase(backend);

  it("decides each caller's claim on its own: all of its gates or none", async () => {
    await parkedRun(h, "r-one", ["g-one"]);
    await parkedRun(h, "r-two", ["g-two-a", "g-two-b"]);
    await claimForMany(h.db, [{ claims: [approve("g-two-b")], actor: by("user-alice") }], "i-test");

    const [alice, late] = await claimForMany(
      h.db,
      [
        { claims: [approve("g-one")], actor: by("user-alice") },
        // One of its two gates is already answered: it claims neither.
        { claims: [approve("g-two-a"), approve("g-two-b")], actor: by("user-alice") },
      ],
      "i-test",
    );
    expect(alice!.ids).toEqual(["g-one"]);
    expect(alice!.continuations.get("r-one")?.read()).toMatchObject({ threadId: "t-r-one", ownerId: "user-alice" });
    expect(late!.ids).toEqual([]);
    expect(await statusOf(h, "g-two-a")).toBe("pending");
    expect((await findRun(h.db, "r-one"))?.status).toBe("running");
  });

  it("refuses only the caller whose remembered credential is no longer live", async () => {
    await parkedRun(h, "r-live", ["g-live"]);
    await parkedRun(h, "r-ended", ["g-ended"]);
    const open = await createSession(h.db, "user-alice");
    const ended = await createSession(h.db, "user-alice");
    await revokeSession(h.db, ended);
    const remembered = (sessionId: string): ClaimRequest["unverified"] => ({
      credential: { kind: "session", userId: "user-alice", sessionId },
      role: "member",
    });

    const [live, stale] = await claimForMany(
      h.db,
      [
        { claims: [approve("g-live")], actor: by("user-alice"), unverified: remembered(open) },
        { claims: [approve("g-ended")], actor: by("user-alice"), unverified: remembered(ended) },
      ],
      "i-test",
    );
    expect(live!.ids).toEqual(["g-live"]);
    expect(stale!.ids).toEqual([]);
    expect(await statusOf(h, "g-ended")).toBe("pending");
    expect((await findRun(h.db, "r-ended"))?.status).toBe("paused");
  });

  it("never claims another tenant's gate for a caller, whoever shares the statement", async () => {
    await parkedRun(h, "r-globex", ["g-globex"], "user-mallory", "tenant-globex");
    await parkedRun(h, "r-acme", ["g-acme"]);
    const [intruder, owner] = await claimForMany(
      h.db,
      [
        { claims: [approve("g-globex")], actor: by("user-alice") },
        { claims: [approve("g-acme")], actor: by("user-alice") },
      ],
      "i-test",
    );
    expect(intruder!.ids).toEqual([]);
    expect(owner!.ids).toEqual(["g-acme"]);
    expect(await statusOf(h, "g-globex")).toBe("pending");
  });

  it("continues a run answered by two callers at once through one of them, and audits each as its own", async () => {
    await parkedRun(h, "r-both", ["g-both-a", "g-both-b"]);
    const results = await claimForMany(
      h.db,
      [
        { claims: [approve("g-both-a")], actor: by("user-alice") },
        { claims: [approve("g-both-b")], actor: by("user-bob") },
      ],
      "i-test",
    );
    expect(results.map((r) => r.ids)).toEqual([["g-both-a"], ["g-both-b"]]);
    expect(results.filter((r) => r.continuations.has("r-both"))).toHaveLength(1);
    expect((await findRun(h.db, "r-both"))?.status).toBe("running");
    const audited = await queryRows<{ subject_id: string; actor_id: string }>(
      h.db,
      sql`select subject_id, actor_id from audit_log where subject_id in ('g-both-a', 'g-both-b') order by subject_id`,
    );
    expect(audited).toEqual([
      { subject_id: "g-both-a", actor_id: "user-alice" },
      { subject_id: "g-both-b", actor_id: "user-bob" },
    ]);
  });

  it("creates each standing approval for the caller that gave it, only with its approval", async () => {
    await parkedRun(h, "r-grant", ["g-grant"]);
    await parkedRun(h, "r-nogrant", ["g-nogrant"]);
    await claimForMany(h.db, [{ claims: [approve("g-nogrant")], actor: by("user-alice") }], "i-test");
    await claimForMany(
      h.db,
      [
        { claims: [approve("g-grant")], actor: by("user-alice"), grants: [grant("grant-1", "g-grant")] },
        // Lost (already answered): its grant is not created.
        { claims: [approve("g-nogrant")], actor: by("user-alice"), grants: [grant("grant-2", "g-nogrant")] },
      ],
      "i-test",
    );
    const grants = await queryRows<{ id: string; granted_by: string }>(h.db, sql`select id, granted_by from approval_grants order by id`);
    expect(grants).toEqual([{ id: "grant-1", granted_by: "user-alice" }]);
  });

  it("writes a grant only for the caller that approved its interaction", async () => {
    await parkedRun(h, "r-alice", ["g-alice"]);
    await parkedRun(h, "r-bob", ["g-bob"]);
    await claimForMany(
      h.db,
      [
        // Alice names Bob's gate as the source of a grant: it is not hers to grant from.
        {
          claims: [approve("g-alice")],
          actor: by("user-alice"),
          grants: [grant("grant-alice", "g-alice"), grant("grant-stolen", "g-bob")],
        },
        { claims: [approve("g-bob")], actor: by("user-bob") },
      ],
      "i-test",
    );
    const grants = await queryRows<{ id: string; granted_by: string }>(
      h.db,
      sql`select id, granted_by from approval_grants where id in (${"grant-alice"}, ${"grant-stolen"})`,
    );
    expect(grants).toEqual([{ id: "grant-alice", granted_by: "user-alice" }]);
  });
});
