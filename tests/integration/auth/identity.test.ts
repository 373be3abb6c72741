import { sql } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { createApiToken, hashToken, listApiTokens, revokeApiToken } from "@/server/runtime/api-tokens";
import { identityFrom } from "@/server/auth/identity";
import { listAudit } from "@/server/db/queries/audit";
import { createSession, revokeSession } from "@/server/db/queries/sessions";
import type { Identity } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

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
  const h = useSeededDatabase(backend);
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
});
