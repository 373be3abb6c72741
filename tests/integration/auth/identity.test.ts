import { sql } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, hashToken, listApiTokens, revokeApiToken } from "@/server/runtime/access/api-tokens";
import { identityFrom, rememberedIdentityFrom } from "@/server/auth/identity";
import { findThread } from "@/server/db/queries/threads";
import { listAudit } from "@/server/db/queries/audit";
import { createSession, revokeSession } from "@/server/db/queries/sessions";
import { StaleCredentialError, type Identity, type Runtime } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";
import { drain, started, testRuntime } from "../../helpers/runtime";

const SECRET = "integration-test-secret-0123456789";
process.env.AUTH_SECRET = SECRET;

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };

/** A session cookie as Auth.js makes it: the user and the server-side session it names. */
async function cookieFor(uid: string, sid: string, secret = SECRET): Promise<string> {
  const jwt = await encode({ token: { uid, sub: uid, sid }, secret, salt: "authjs.session-token" });
  return `authjs.session-token=${jwt}`;
}

describe.each(testBackends())("identity derivation on $name", (backend) => {
  let statements = 0;
  const h = useSeededDatabase(backend, { onStatement: () => statements++ });
  /** Signs `uid` in: a session on the server, and its cookie. */
  const sessionCookie = async (uid: string, secret = SECRET) =>
    cookieFor(uid, uid === "user-ghost" ? "no-session" : await createSession(h.db, uid), secret);

  it("refuses a cookie whose session ended (signed out), or that names no session at all", async () => {
    const sid = await createSession(h.db, "user-alice");
    const cookie = await cookieFor("user-alice", sid);
    expect(await identityFrom(h.db, new Headers({ cookie }))).toEqual(alice);
    await revokeSession(h.db, sid);
    expect(await identityFrom(h.db, new Headers({ cookie }))).toBeNull();
    const jwt = await encode({ token: { uid: "user-alice", sub: "user-alice" }, secret: SECRET, salt: "authjs.session-token" });
    expect(await identityFrom(h.db, new Headers({ cookie: `authjs.session-token=${jwt}` }))).toBeNull();
  });

  it("derives tenant, user and implied roles from a session cookie", async () => {
    const identity = await identityFrom(h.db, new Headers({ cookie: await sessionCookie("user-carol") }));
    expect(identity).toEqual({ tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] });
  });

  it("refuses a cookie signed with another secret, or naming a user who does not exist", async () => {
    expect(await identityFrom(h.db, new Headers({ cookie: await sessionCookie("user-alice", "another-secret-0123456789") }))).toBeNull();
    expect(await identityFrom(h.db, new Headers({ cookie: await sessionCookie("user-ghost") }))).toBeNull();
    expect(await identityFrom(h.db, new Headers())).toBeNull();
  });

  it("stores only a hash of a bearer token, honours it until revoked, and audits both", async () => {
    const { token, info } = await createApiToken(h.db, alice, "laptop");
    const stored = await queryRows<{ token_hash: string }>(h.db, sql`select token_hash from api_tokens where id = ${info.id}`);
    expect(stored[0]?.token_hash).toBe(hashToken(token));
    const dump = JSON.stringify(await queryRows(h.db, sql`select * from api_tokens`));
    expect(dump).not.toContain(token);

    const headers = new Headers({ authorization: `Bearer ${token}` });
    expect(await identityFrom(h.db, headers)).toEqual(alice);

    await revokeApiToken(h.db, alice, info.id);
    expect(await identityFrom(h.db, headers)).toBeNull();
    expect((await listApiTokens(h.db, alice)).find((t) => t.id === info.id)?.revokedAt).toBeInstanceOf(Date);

    const audit = await listAudit(h.db, "tenant-acme", { type: "api_token", id: info.id });
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([
      ["token.revoke", "user-alice"],
      ["token.create", "user-alice"],
    ]);
  });

  it("gives every token an expiry (90 days unless asked, at most 365) and refuses it afterwards", async () => {
    const before = Date.now();
    const { token, info } = await createApiToken(h.db, alice, "short", 1);
    expect(info.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect((await createApiToken(h.db, alice, "default")).info.expiresAt!.getTime()).toBeGreaterThanOrEqual(
      before + 90 * 24 * 3600_000 - 1000,
    );
    const headers = new Headers({ authorization: `Bearer ${token}` });
    expect(await identityFrom(h.db, headers)).toEqual(alice);
    // A day later, as far as the database can tell.
    await h.db.execute(sql`update api_tokens set expires_at = now() - interval '1 second' where id = ${info.id}`);
    expect(await identityFrom(h.db, headers)).toBeNull();
  });

  it("lets nobody revoke or list another user's tokens", async () => {
    const { token, info } = await createApiToken(h.db, alice, "mine");
    await expect(revokeApiToken(h.db, bob, info.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await listApiTokens(h.db, bob)).map((t) => t.id)).not.toContain(info.id);
    expect(await identityFrom(h.db, new Headers({ authorization: `Bearer ${token}` }))).toEqual(alice);
  });

  it("does not fall back to the cookie when a bearer token is wrong", async () => {
    const headers = new Headers({ authorization: "Bearer hbr_wrong", cookie: await sessionCookie("user-alice") });
    expect(await identityFrom(h.db, headers)).toBeNull();
  });

  describe("remembered for a run's first write, which checks the credential", () => {
    let runtime: Runtime;
    let counter = 0;
    beforeAll(() => {
      runtime = testRuntime(h.db);
    });
    afterAll(async () => {
      runtime.close();
      await runtime.idle();
    });
    const say = (identity: Identity, threadId = `remembered-${++counter}`) =>
      runtime.startRun(identity, {
        agentId: "concierge",
        threadId,
        transportRunId: threadId,
        messages: [{ id: threadId, role: "user", content: "hello" }],
      });
    /** Starting on `identity` is refused as stale, and writes nothing. */
    async function refusedAsStale(identity: Identity) {
      const threadId = `stale-${++counter}`;
      const refused = await say(identity, threadId).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(StaleCredentialError.is(refused)).toBe(true);
      expect(await findThread(h.db, threadId)).toBeUndefined();
    }

    it("looks a token up once, then remembers it until it is revoked", async () => {
      const { token, info } = await createApiToken(h.db, alice, "remembered");
      const headers = new Headers({ authorization: `Bearer ${token}` });
      expect(await rememberedIdentityFrom(h.db, headers)).toEqual(alice);
      const before = statements;
      const remembered = (await rememberedIdentityFrom(h.db, headers))!;
      expect(statements - before).toBe(0);
      expect(remembered).toMatchObject({ ...alice, unverified: { credential: { kind: "token" }, role: "member" } });
      const run = started(await say(remembered));
      expect((await drain(run.events)).at(-1)?.event.type).toBe("run.completed");

      await revokeApiToken(h.db, alice, info.id);
      await refusedAsStale(remembered);
      expect(await rememberedIdentityFrom(h.db, headers, { fresh: true })).toBeNull();
    });

    it("refuses a remembered identity once its token expired, its session ended, or its role changed", async () => {
      const { token, info } = await createApiToken(h.db, alice, "expiring");
      const byToken = new Headers({ authorization: `Bearer ${token}` });
      await rememberedIdentityFrom(h.db, byToken);
      const tokenIdentity = (await rememberedIdentityFrom(h.db, byToken))!;
      await h.db.execute(sql`update api_tokens set expires_at = now() - interval '1 second' where id = ${info.id}`);
      await refusedAsStale(tokenIdentity);

      const sid = await createSession(h.db, "user-alice");
      const bySession = new Headers({ cookie: await cookieFor("user-alice", sid) });
      await rememberedIdentityFrom(h.db, bySession);
      const sessionIdentity = (await rememberedIdentityFrom(h.db, bySession))!;
      expect(sessionIdentity.unverified).toEqual({ credential: { kind: "session", userId: "user-alice", sessionId: sid }, role: "member" });
      started(await say(sessionIdentity));
      await revokeSession(h.db, sid);
      await refusedAsStale(sessionIdentity);

      const bobSid = await createSession(h.db, "user-bob");
      const bobSession = new Headers({ cookie: await cookieFor("user-bob", bobSid) });
      await rememberedIdentityFrom(h.db, bobSession);
      const approver = (await rememberedIdentityFrom(h.db, bobSession))!;
      await h.db.execute(sql`update users set role = 'member' where id = 'user-bob'`);
      try {
        await refusedAsStale(approver);
        expect((await rememberedIdentityFrom(h.db, bobSession, { fresh: true }))?.roles).toEqual(["member"]);
      } finally {
        await h.db.execute(sql`update users set role = 'approver' where id = 'user-bob'`);
      }
    });

    it("answers a gate parked here on a remembered identity only while its credential lives", async () => {
      const { token, info } = await createApiToken(h.db, alice, "answers-here");
      const headers = new Headers({ authorization: `Bearer ${token}` });
      await rememberedIdentityFrom(h.db, headers);
      const remembered = (await rememberedIdentityFrom(h.db, headers))!;
      const gateOn = async (threadId: string) => {
        const run = started(
          await runtime.startRun(alice, {
            agentId: "concierge",
            threadId,
            transportRunId: threadId,
            messages: [{ id: threadId, role: "user", content: "send an email to remembered@example.com saying hi" }],
          }),
        );
        const last = (await drain(run.events)).at(-1)?.event;
        if (last?.type !== "run.paused") throw new Error(`expected a gate, got ${last?.type}`);
        return last.interrupts[0]!.id;
      };
      const answer = (threadId: string, interactionId: string) =>
        runtime.startRun(remembered, {
          agentId: "concierge",
          threadId,
          transportRunId: `${threadId}-answer`,
          messages: [],
          resume: [{ interactionId, status: "resolved", payload: { approved: true } }],
        });
      const answered = await gateOn("remembered-gate");
      expect((await drain(started(await answer("remembered-gate", answered)).events)).at(-1)?.event.type).toBe("run.completed");

      const waiting = await gateOn("remembered-gate-revoked");
      await revokeApiToken(h.db, alice, info.id);
      const refused = await answer("remembered-gate-revoked", waiting).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(StaleCredentialError.is(refused)).toBe(true);
      const [row] = await queryRows<{ status: string }>(h.db, sql`select status from interactions where id = ${waiting}`);
      expect(row?.status).toBe("pending");
      await runtime.interactions.decide(alice, waiting, false);
    });

    it("reads an empty Authorization header as none, as a lookup does: the cookie counts", async () => {
      const headers = new Headers({ authorization: "", cookie: await cookieFor("user-alice", await createSession(h.db, "user-alice")) });
      expect(await identityFrom(h.db, headers)).toEqual(alice);
      expect(await rememberedIdentityFrom(h.db, headers)).toEqual(alice);
    });

    it("never lets a remembered identity read first: an answer to a gate needs it looked up", async () => {
      const { token } = await createApiToken(h.db, alice, "answers");
      const headers = new Headers({ authorization: `Bearer ${token}` });
      await rememberedIdentityFrom(h.db, headers);
      const remembered = (await rememberedIdentityFrom(h.db, headers))!;
      const refused = await runtime
        .startRun(remembered, {
          agentId: "concierge",
          threadId: "remembered-resume",
          transportRunId: "x",
          messages: [],
          resume: [{ interactionId: "anything", status: "resolved", payload: { approved: true } }],
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(StaleCredentialError.is(refused)).toBe(true);
    });
  });
});
