/**
 * A single sign-on sign-in, once the provider has vouched for its subject (Auth.js checked state,
 * nonce, PKCE and the ID token): which Harbor user it is, created at the first sign-in, and the role
 * the provider's claims give now.
 *
 * The rule: a sign-in lands only on a user of the tenant its verified email's domain maps to.
 * - A subject seen before signs in as its own user, whatever email it has now (so a changed email
 *   cannot take over someone else's account), if its domain still maps to that user's tenant.
 * - A new subject with the email of an existing user is linked to them when the deployment allows
 *   it (HARBOR_SSO_LINK_BY_EMAIL; else refused) — unless some other subject of this provider
 *   already signs in as them (one subject per user and provider).
 * - Otherwise the user is created, without a password, in the mapped tenant.
 * Each sign-in, link, creation and role change is audited with the provider's issuer and subject.
 */
import { randomUUID } from "node:crypto";
import type { Executor } from "@/server/db";
import { appendAudit } from "@/server/db/queries/audit";
import {
  findTenantIdBySlug,
  findUserByEmailAt,
  findUserByIdentity,
  insertIdentity,
  insertPasswordlessUser,
  setUserRole,
  touchIdentity,
  type SsoUserRow,
} from "@/server/db/queries/sso";
import type { Role } from "@/server/domain";
import { log } from "@/server/log";
import { displayName, roleFromClaims, SsoClaims, tenantSlugFor, verifiedEmail, type SsoPolicy } from "./policy";
import type { SsoRefusal } from "./refusals";

export type SsoSignInResult = { ok: true; userId: string; tenantId: string; role: Role } | { ok: false; refusal: SsoRefusal };

interface Asserted {
  issuer: string;
  subject: string;
  email: string;
  tenantId: string;
  /** The role the claims give; undefined when the deployment maps none (Harbor's own roles stand). */
  role: Role | undefined;
  name: string;
  linkByEmail: boolean;
}

/** Thrown inside a creation's transaction when someone took the email or the subject meanwhile. */
class LostRace extends Error {}

/** Who a provider's claims sign in as (creating or linking the user), or why not. */
export async function completeSsoSignIn(
  db: Executor,
  input: { issuer: string; policy: SsoPolicy; claims: unknown },
): Promise<SsoSignInResult> {
  const asserted = await assertedIdentity(db, input);
  if ("refusal" in asserted) {
    log.info({ issuer: input.issuer, refusal: asserted.refusal }, "single sign-on refused");
    return { ok: false, refusal: asserted.refusal };
  }
  // Two sign-ins of one new person at once (a double click) race to create them: the loser looks again.
  for (let attempt = 0; ; attempt++) {
    try {
      return await signInAs(db, asserted);
    } catch (error) {
      if (!(error instanceof LostRace) || attempt > 0) throw error;
    }
  }
}

/** The claims, checked: a verified email whose domain maps to an existing tenant. */
async function assertedIdentity(
  db: Executor,
  input: { issuer: string; policy: SsoPolicy; claims: unknown },
): Promise<Asserted | { refusal: SsoRefusal }> {
  const parsed = SsoClaims.safeParse(input.claims);
  if (!parsed.success || !parsed.data.email) return { refusal: "SsoClaims" };
  const claims = parsed.data;
  const email = verifiedEmail(claims);
  if (!email) return { refusal: "SsoUnverified" };
  const slug = tenantSlugFor(email, input.policy);
  const tenantId = slug ? await findTenantIdBySlug(db, slug) : undefined;
  if (slug && !tenantId) log.warn({ tenant: slug }, "HARBOR_SSO_DOMAINS names a tenant that does not exist");
  if (!tenantId) return { refusal: "SsoDomain" };
  const role = roleFromClaims(claims, input.policy);
  return {
    issuer: input.issuer,
    subject: claims.sub,
    email,
    tenantId,
    role,
    name: displayName(claims, email),
    linkByEmail: input.policy.linkByEmail,
  };
}

async function signInAs(db: Executor, who: Asserted): Promise<SsoSignInResult> {
  const linked = await findUserByIdentity(db, who.issuer, who.subject);
  if (linked) {
    if (linked.tenantId !== who.tenantId) return { ok: false, refusal: "SsoTenant" };
    await touchIdentity(db, who.issuer, who.subject, who.email);
    return signedIn(db, linked, who);
  }
  const existing = await findUserByEmailAt(db, who.email, who.issuer);
  if (existing) {
    if (existing.tenantId !== who.tenantId) return { ok: false, refusal: "SsoTenant" };
    if (existing.linkedHere) return { ok: false, refusal: "SsoLinked" };
    if (!who.linkByEmail) return { ok: false, refusal: "SsoExisting" };
    if (!(await insertIdentity(db, { ...identityOf(who), userId: existing.id }))) throw new LostRace();
    await audit(db, existing.id, who, "sso.link", "linked", { email: who.email });
    return signedIn(db, existing, who);
  }
  const created = await createUser(db, who);
  return signedIn(db, created, who);
}

const identityOf = (who: Asserted) => ({ issuer: who.issuer, subject: who.subject, tenantId: who.tenantId, email: who.email });

/** A new password-less user with the asserted role, their identity and the audit of both, at once. */
async function createUser(db: Executor, who: Asserted): Promise<SsoUserRow> {
  const id = `user-${randomUUID()}`;
  const role = who.role ?? "member";
  await db.transaction(async (tx) => {
    if (!(await insertPasswordlessUser(tx, { id, tenantId: who.tenantId, email: who.email, name: who.name, role }))) throw new LostRace();
    if (!(await insertIdentity(tx, { ...identityOf(who), userId: id }))) throw new LostRace();
    await audit(tx, id, who, "user.create", "created", { email: who.email, role });
  });
  log.info({ userId: id, issuer: who.issuer }, "single sign-on created a user");
  return { id, tenantId: who.tenantId, email: who.email, name: who.name, role, tenantSlug: "" };
}

async function signedIn(db: Executor, user: SsoUserRow, who: Asserted): Promise<SsoSignInResult> {
  const role = await applyRole(db, user, who, "sign_in");
  await audit(db, user.id, who, "sso.sign_in", "signed_in", { role });
  log.info({ userId: user.id, issuer: who.issuer }, "signed in with single sign-on");
  return { ok: true, userId: user.id, tenantId: user.tenantId, role };
}

/**
 * Writes the role the provider gives now, if it differs, and audits the change. A role someone else
 * changed meanwhile is left to the next sign-in or re-check (the write is a compare-and-set).
 */
export async function applyRole(
  db: Executor,
  user: { id: string; tenantId: string; role: Role },
  who: { issuer: string; subject: string; role: Role | undefined },
  when: "sign_in" | "recheck",
): Promise<Role> {
  if (who.role === undefined || user.role === who.role) return user.role;
  if (!(await setUserRole(db, user.id, user.role, who.role))) return user.role;
  await audit(db, user.id, { ...who, tenantId: user.tenantId }, "user.role_change", "changed", { from: user.role, to: who.role, when });
  log.info({ userId: user.id, from: user.role, to: who.role, when }, "single sign-on changed a role");
  return who.role;
}

/** One audit row: the user is the actor and the subject; the details name the provider's issuer and subject (never a token). */
export async function audit(
  db: Executor,
  userId: string,
  who: { issuer: string; subject: string; tenantId: string },
  action: string,
  outcome: string,
  details: Record<string, unknown>,
): Promise<void> {
  await appendAudit(db, {
    tenantId: who.tenantId,
    actorId: userId,
    action,
    subjectType: "user",
    subjectId: userId,
    outcome,
    details: { issuer: who.issuer, subject: who.subject, ...details },
  });
}
