/**
 * Roles follow the provider between sign-ins: a real OpenID Connect provider (the demo's, started
 * here) signs alice and bob in through the code flow; then what an administrator changes there
 * reaches Harbor at the first request after HARBOR_SSO_RECHECK_S — a role, or the end of the session
 * — and an unresponsive provider changes nothing and holds no request for long.
 */
import { createServer, type Server, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityFrom } from "@/server/auth/identity";
import { ssoSession, ssoSignIn } from "@/server/auth/sso/callbacks";
import { ssoProvider } from "@/server/auth/sso/provider";
import { listAudit } from "@/server/db/queries/audit";
import { startIdentityProvider, type RunningIdentityProvider } from "@/server/peers/identity-provider";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";
import { signInAtProvider } from "../../helpers/oidc-flow";
import { freePort } from "../../helpers/server";

const SECRET = "integration-test-secret-0123456789";
const port = await freePort();
const ISSUER = `http://127.0.0.1:${port}`;
const CLIENT = { clientId: "harbor-sign-in", clientSecret: "sign-in-secret" };
const REDIRECT = "http://127.0.0.1:3000/api/auth/callback/sso";
// Read by settings() at its first call, which is in these tests.
Object.assign(process.env, {
  AUTH_SECRET: SECRET,
  HARBOR_SSO_ISSUER: ISSUER,
  HARBOR_SSO_CLIENT_ID: CLIENT.clientId,
  HARBOR_SSO_CLIENT_SECRET: CLIENT.clientSecret,
  HARBOR_SSO_DOMAINS: "acme.test=acme",
  HARBOR_SSO_ROLES: "harbor-admins=admin,harbor-approvers=approver",
  HARBOR_SSO_SCOPES: "openid email profile groups offline_access",
  HARBOR_SSO_RECHECK_S: "60",
  HARBOR_SSO_LINK_BY_EMAIL: "1",
});

const ACCOUNTS = [
  { id: "user-alice", email: "alice@acme.test", name: "Alice", password: "harbor", groups: [] },
  { id: "user-bob", email: "bob@acme.test", name: "Bob", password: "harbor", groups: ["harbor-approvers"] },
];

describe.each(testBackends())("single sign-on re-checks on $name", (backend) => {
  const h = useSeededDatabase(backend);
  let idp: RunningIdentityProvider | undefined;
  beforeAll(async () => {
    idp = await startIdentityProvider({
      port,
      client: { clientId: "calendar", clientSecret: "calendar-secret", redirectUris: ["http://127.0.0.1:9/callback"] },
      signInClient: { ...CLIENT, redirectUris: [REDIRECT] },
      accounts: ACCOUNTS,
    });
  });
  afterAll(() => idp?.close());

  /** What Auth.js does at the callback, then the session cookie it sets. */
  async function signIn(email: string) {
    const provider = (await ssoProvider())!;
    const { account, idClaims } = await signInAtProvider(
      { ...CLIENT, issuer: ISSUER, redirectUri: REDIRECT, scopes: provider.scopes },
      { email, password: "harbor" },
    );
    expect(await ssoSignIn(h.db, provider, account, idClaims)).toBe(true);
    const session = (await ssoSession(h.db, provider, SECRET, account))!;
    const jwt = await encode({
      token: { uid: session.uid, sub: session.uid, sid: session.sid },
      secret: SECRET,
      salt: "authjs.session-token",
    });
    return { ...session, account, headers: () => new Headers({ cookie: `authjs.session-token=${jwt}` }) };
  }
  const due = (sid: string) => h.db.execute(sql`update sessions set sso_checked_at = now() - interval '1 hour' where id = ${sid}`);

  it("picks up a role changed at the provider at the first request after the interval, once", async () => {
    const alice = await signIn("alice@acme.test");
    expect((await identityFrom(h.db, alice.headers()))?.roles).toEqual(["member"]);

    idp!.updateAccount("user-alice", { groups: ["harbor-admins"] });
    // Not due yet: the provider is not asked.
    expect((await identityFrom(h.db, alice.headers()))?.roles).toEqual(["member"]);
    await due(alice.sid);
    const [one, two] = await Promise.all([identityFrom(h.db, alice.headers()), identityFrom(h.db, alice.headers())]);
    expect(one?.roles).toEqual(["member", "approver", "admin"]);
    expect(two?.roles).toEqual(["member", "approver", "admin"]);

    const audit = await listAudit(h.db, "tenant-acme", { type: "user", id: "user-alice" });
    const changes = audit.filter((a) => a.action === "user.role_change");
    expect(changes.map((c) => c.details)).toEqual([
      { issuer: ISSUER, subject: "user-alice", from: "member", to: "admin", when: "recheck" },
    ]);
    expect(changes[0]!.actorId).toBe("user-alice");
    // Tokens are never in the audit, and only sealed in the session.
    const stored = JSON.stringify([audit, await queryRows(h.db, sql`select * from sessions where id = ${alice.sid}`)]);
    for (const token of [alice.account.access_token, alice.account.refresh_token!]) expect(stored).not.toContain(token);

    // Back to member at the provider: the next due check says so.
    idp!.updateAccount("user-alice", { groups: [] });
    await due(alice.sid);
    expect((await identityFrom(h.db, alice.headers()))?.roles).toEqual(["member"]);
  });

  it("ends the session when the provider refuses it (access revoked there)", async () => {
    const bob = await signIn("bob@acme.test");
    expect((await identityFrom(h.db, bob.headers()))?.roles).toEqual(["member", "approver"]);
    await idp!.revokeAccount("user-bob");
    await due(bob.sid);
    expect(await identityFrom(h.db, bob.headers())).toBeNull();
    expect(await queryRows(h.db, sql`select revoked_at is not null as ended from sessions where id = ${bob.sid}`)).toEqual([
      { ended: true },
    ]);
    const ended = (await listAudit(h.db, "tenant-acme", { type: "user", id: "user-bob" })).find((a) => a.action === "sso.session_end");
    expect(ended?.details).toEqual({ issuer: ISSUER, subject: "user-bob", reason: "refused" });
  });

  it("keeps the last role when the provider does not answer, and holds the request at most a moment", async () => {
    const alice = await signIn("alice@acme.test");
    // The provider hangs: connections are taken and never answered.
    await idp!.close();
    idp = undefined;
    const sockets = new Set<Socket>();
    const hanging: Server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => hanging.listen(port, "127.0.0.1", resolve));
    try {
      await due(alice.sid);
      const started = Date.now();
      expect((await identityFrom(h.db, alice.headers()))?.roles).toEqual(["member"]);
      expect(Date.now() - started).toBeLessThan(3_500);
      // Checked (and not due again for an interval): later requests do not wait.
      const again = Date.now();
      expect((await identityFrom(h.db, alice.headers()))?.roles).toEqual(["member"]);
      expect(Date.now() - again).toBeLessThan(500);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  });
});
