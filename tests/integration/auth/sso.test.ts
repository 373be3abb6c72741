/**
 * Single sign-on's sign-in rules on both engines: the email's domain picks the tenant, the role
 * claim picks the role, an existing user is linked by email, a subject never takes over another
 * account, and unverified or unmapped emails are refused. Password sign-in is off in this file.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { authorizePassword, checkPassword, passwordSignInOff } from "@/server/auth/password";
import { completeSsoSignIn } from "@/server/auth/sso/sign-in";
import { listAudit } from "@/server/db/queries/audit";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

// Read by settings() at its first call, which is in these tests.
process.env.AUTH_SECRET = "integration-test-secret-0123456789";
process.env.HARBOR_SSO_ISSUER = "https://idp.example.test";
process.env.HARBOR_SSO_CLIENT_ID = "harbor";
process.env.HARBOR_SSO_CLIENT_SECRET = "a-client-secret";
process.env.HARBOR_SSO_DOMAINS = "acme.test=acme,globex.test=globex";
process.env.HARBOR_PASSWORD_SIGNIN = "0";

const ISSUER = "https://idp.example.test";
const policy = {
  domains: { "acme.test": "acme", "globex.test": "globex", "ghost.test": "no-such-tenant" },
  roleClaim: "groups",
  roles: { "harbor-admins": "admin", "harbor-approvers": "approver" },
  linkByEmail: true,
} as const;

const claims = (sub: string, email: string, extra: Record<string, unknown> = {}) => ({ sub, email, email_verified: true, ...extra });

describe.each(testBackends())("single sign-on on $name", (backend) => {
  const h = useSeededDatabase(backend);
  const signIn = (value: unknown, issuer = ISSUER) => completeSsoSignIn(h.db, { issuer, policy, claims: value });
  const userByEmail = async (email: string) =>
    (
      await queryRows<{ id: string; tenant_id: string; role: string; password_hash: string | null; name: string }>(
        h.db,
        sql`select id, tenant_id, role, password_hash, name from users where email = ${email}`,
      )
    )[0];
  const userCount = async () => (await queryRows<{ n: number }>(h.db, sql`select count(*)::int as n from users`))[0]!.n;

  it("creates a user without a password in the tenant the email's domain maps to, with the claim's role, audited", async () => {
    const result = await signIn(claims("sub-dave", "Dave@ACME.test", { name: "Dave", groups: ["harbor-approvers", "kitchen"] }));
    expect(result).toMatchObject({ ok: true, tenantId: "tenant-acme", role: "approver" });
    const dave = await userByEmail("dave@acme.test");
    expect(dave).toMatchObject({ tenant_id: "tenant-acme", role: "approver", password_hash: null, name: "Dave" });
    expect(result.ok && result.userId).toBe(dave!.id);
    const identities = await queryRows(
      h.db,
      sql`select issuer, subject, user_id, tenant_id from user_identities where subject = 'sub-dave'`,
    );
    expect(identities).toEqual([{ issuer: ISSUER, subject: "sub-dave", user_id: dave!.id, tenant_id: "tenant-acme" }]);
    const audit = await listAudit(h.db, "tenant-acme", { type: "user", id: dave!.id });
    expect(audit.map((a) => [a.action, a.actorId, a.details])).toEqual([
      ["sso.sign_in", dave!.id, { issuer: ISSUER, subject: "sub-dave", role: "approver" }],
      ["user.create", dave!.id, { issuer: ISSUER, subject: "sub-dave", email: "dave@acme.test", role: "approver" }],
    ]);

    // Another domain, another tenant; the second sign-in finds the same user.
    expect(await signIn(claims("sub-zed", "zed@globex.test", { groups: "harbor-admins" }))).toMatchObject({
      ok: true,
      tenantId: "tenant-globex",
      role: "admin",
    });
    expect(await signIn(claims("sub-dave", "dave@acme.test", { groups: ["harbor-approvers"] }))).toMatchObject({ userId: dave!.id });
  });

  it("gives the highest role the claim's values map to, and member when none does", async () => {
    const roleOf = async (groups: unknown) => {
      const result = await signIn(claims("sub-erin", "erin@acme.test", { groups }));
      return result.ok ? result.role : result.refusal;
    };
    expect(await roleOf(["harbor-approvers", "harbor-admins"])).toBe("admin");
    expect(await roleOf(["kitchen"])).toBe("member");
    expect(await roleOf(undefined)).toBe("member");
    expect(await roleOf("harbor-approvers")).toBe("approver");
    expect(await roleOf([42, "constructor", "toString"])).toBe("member");
    // Each change was written and audited with the provider's subject.
    const erin = await userByEmail("erin@acme.test");
    expect(erin!.role).toBe("member");
    const changes = (await listAudit(h.db, "tenant-acme", { type: "user", id: erin!.id })).filter((a) => a.action === "user.role_change");
    expect(changes.map((c) => c.details)).toEqual([
      { issuer: ISSUER, subject: "sub-erin", from: "approver", to: "member", when: "sign_in" },
      { issuer: ISSUER, subject: "sub-erin", from: "member", to: "approver", when: "sign_in" },
      { issuer: ISSUER, subject: "sub-erin", from: "admin", to: "member", when: "sign_in" },
    ]);
  });

  it("links an existing user by email, keeping their account and password, with the role the provider gives", async () => {
    const result = await signIn(claims("sub-alice", "alice@acme.test", { groups: ["harbor-admins"] }));
    expect(result).toEqual({ ok: true, userId: "user-alice", tenantId: "tenant-acme", role: "admin" });
    expect(await userByEmail("alice@acme.test")).toMatchObject({
      id: "user-alice",
      role: "admin",
      password_hash: expect.stringMatching(/^scrypt\$/),
    });
    const audit = await listAudit(h.db, "tenant-acme", { type: "user", id: "user-alice" });
    expect(audit.map((a) => a.action)).toEqual(["sso.sign_in", "user.role_change", "sso.link"]);
    // The provider drops her from the group: the next sign-in makes her a member again.
    expect(await signIn(claims("sub-alice", "alice@acme.test"))).toMatchObject({ userId: "user-alice", role: "member" });
  });

  it("refuses to link an existing account by email unless the deployment allows it", async () => {
    const strict = { ...policy, linkByEmail: false };
    const before = await userCount();
    const result = await completeSsoSignIn(h.db, { issuer: ISSUER, policy: strict, claims: claims("sub-carol", "carol@acme.test") });
    expect(result).toEqual({ ok: false, refusal: "SsoExisting" });
    expect(await queryRows(h.db, sql`select subject from user_identities where user_id = 'user-carol'`)).toEqual([]);
    // A person new to Harbor is still created.
    expect(await completeSsoSignIn(h.db, { issuer: ISSUER, policy: strict, claims: claims("sub-fay", "fay@acme.test") })).toMatchObject({
      ok: true,
      role: "member",
    });
    expect(await userCount()).toBe(before + 1);
  });

  it("leaves Harbor's roles alone when the deployment maps no claim values to roles", async () => {
    expect(await signIn(claims("sub-gil", "gil@acme.test", { groups: ["harbor-admins"] }))).toMatchObject({ role: "admin" });
    const unmapped = { ...policy, roles: {} };
    const result = await completeSsoSignIn(h.db, { issuer: ISSUER, policy: unmapped, claims: claims("sub-gil", "gil@acme.test") });
    expect(result).toMatchObject({ ok: true, role: "admin" });
    expect(await userByEmail("gil@acme.test")).toMatchObject({ role: "admin" });
  });

  it("checks an email before folding its case: a look-alike of an account's address is no address", async () => {
    // "K" here is the Kelvin sign, which lowercases to an ASCII k.
    expect(await signIn(claims("sub-kate", "\u212Aate@acme.test"))).toEqual({ ok: false, refusal: "SsoClaims" });
  });

  it("signs a known subject in as its own user even after its email became someone else's", async () => {
    expect(await signIn(claims("sub-bob", "bob@acme.test", { groups: ["harbor-approvers"] }))).toMatchObject({ userId: "user-bob" });
    // The provider now says sub-bob's email is carol's (an administrator's slip, or an attack): still bob.
    expect(await signIn(claims("sub-bob", "carol@acme.test", { groups: ["harbor-approvers"] }))).toMatchObject({ userId: "user-bob" });
    expect(await userByEmail("carol@acme.test")).toMatchObject({ id: "user-carol", role: "admin" });
    expect(await userByEmail("bob@acme.test")).toMatchObject({ id: "user-bob" });
    const links = await queryRows(h.db, sql`select subject from user_identities where user_id = 'user-carol'`);
    expect(links).toEqual([]);
  });

  it("refuses a new subject with the email of a user another subject of the provider signs in as", async () => {
    const before = await userCount();
    expect(await signIn(claims("sub-bob-again", "bob@acme.test"))).toEqual({ ok: false, refusal: "SsoLinked" });
    expect(await queryRows(h.db, sql`select subject from user_identities where subject = 'sub-bob-again'`)).toEqual([]);
    // Another provider may link its own subject to bob.
    expect(
      await signIn(claims("sub-bob", "bob@acme.test", { groups: ["harbor-approvers"] }), "https://other-idp.example.test"),
    ).toMatchObject({
      ok: true,
      userId: "user-bob",
    });
    expect(await userCount()).toBe(before);
  });

  it("refuses a subject whose email's domain maps to another tenant than its user's", async () => {
    expect(await signIn(claims("sub-mallory", "mallory@globex.test", { groups: ["harbor-admins"] }))).toMatchObject({
      userId: "user-mallory",
    });
    expect(await signIn(claims("sub-mallory", "mallory@acme.test"))).toEqual({ ok: false, refusal: "SsoTenant" });
  });

  it("refuses an unverified, missing or unmapped email and creates nothing", async () => {
    const before = await userCount();
    expect(await signIn(claims("sub-u1", "una@acme.test", { email_verified: false }))).toEqual({ ok: false, refusal: "SsoUnverified" });
    expect(await signIn(claims("sub-u2", "una@acme.test", { email_verified: "false" }))).toEqual({ ok: false, refusal: "SsoUnverified" });
    expect(await signIn({ sub: "sub-u3", email: "una@acme.test" })).toEqual({ ok: false, refusal: "SsoUnverified" });
    expect(await signIn(claims("sub-u4", "una@initech.test"))).toEqual({ ok: false, refusal: "SsoDomain" });
    expect(await signIn(claims("sub-u5", "una@ghost.test"))).toEqual({ ok: false, refusal: "SsoDomain" });
    expect(await signIn({ sub: "sub-u6", email_verified: true })).toEqual({ ok: false, refusal: "SsoClaims" });
    expect(await signIn({ email: "una@acme.test", email_verified: true })).toEqual({ ok: false, refusal: "SsoClaims" });
    // An unverified email of an existing user does not link it either.
    expect(await signIn(claims("sub-u7", "alice@acme.test", { email_verified: false }))).toEqual({ ok: false, refusal: "SsoUnverified" });
    expect(await userCount()).toBe(before);
    expect(await queryRows(h.db, sql`select subject from user_identities where subject like 'sub-u%'`)).toEqual([]);
  });

  it("refuses a password for a user who has none, and any password while password sign-in is off", async () => {
    await signIn(claims("sub-pat", "pat@acme.test"));
    // The dummy hash's own password must not open a password-less account.
    expect(await checkPassword(h.db, "pat@acme.test", "not a password anyone has")).toBeUndefined();
    expect(await checkPassword(h.db, "pat@acme.test", "harbor")).toBeUndefined();

    const post = (path: string) => new Request(`http://127.0.0.1:3000/api/auth/${path}`, { method: "POST" });
    const refused = passwordSignInOff(post("callback/credentials"));
    expect(refused?.status).toBe(403);
    expect(await refused?.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
    expect(passwordSignInOff(post("signin/sso"))).toBeUndefined();
    // Even called directly, the provider's check refuses before looking at the password.
    await expect(
      authorizePassword(
        { email: "alice@acme.test", password: "harbor" },
        new Request("http://127.0.0.1:3000/api/auth/callback/credentials"),
      ),
    ).rejects.toThrow();
  });
});
