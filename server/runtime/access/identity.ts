/**
 * The caller: looked up for this request, or remembered from an earlier one with the same
 * credential. This file is the one place that tells the two apart, so a remembered caller can never
 * read first — only make writes whose first statement checks its credential.
 */
import type { CredentialCheck, Role } from "@/server/domain";
import { ForbiddenError, StaleCredentialError } from "../errors";

interface Caller {
  readonly tenantId: string;
  readonly userId: string;
  /** The roles the user holds; higher roles include the lower ones. */
  readonly roles: readonly Role[];
}

/** A caller looked up for this request (session or bearer token): may read, then write. */
export interface VerifiedIdentity extends Caller {
  readonly unverified?: undefined;
}

/**
 * A caller remembered from an earlier request with the same credential, not looked up for this
 * one. It may only make writes whose first statement checks `unverified` (see
 * `credentialHoldsFor`); anything that reads first takes a `VerifiedIdentity`, which it gets from
 * `verifiedOnly` — a remembered caller is refused there with `StaleCredentialError`, and the edge
 * looks it up and tries again.
 */
export interface RememberedIdentity extends Caller {
  readonly unverified: CredentialCheck;
}

/**
 * Who is acting. Derived only from the Auth.js session or a bearer API token
 * (see `server/auth/identity.ts`) — never read from a request body. This module is the one place
 * that tells the two kinds apart.
 */
export type Identity = VerifiedIdentity | RememberedIdentity;

export function isRemembered(identity: Identity): identity is RememberedIdentity {
  return identity.unverified !== undefined;
}

/** The caller as one that may read before it writes; a remembered one is refused (StaleCredentialError). */
export function verifiedOnly(identity: Identity): VerifiedIdentity {
  if (isRemembered(identity)) throw new StaleCredentialError();
  return identity;
}

/** What a write's first statement must check: the remembered credential, or nothing for a verified caller. */
export function credentialToCheck(identity: Identity): CredentialCheck | undefined {
  return identity.unverified;
}

const IMPLIED_ROLES: Record<Role, readonly Role[]> = {
  member: ["member"],
  approver: ["member", "approver"],
  admin: ["member", "approver", "admin"],
};

export function rolesOf(role: Role): readonly Role[] {
  return IMPLIED_ROLES[role];
}

export function hasRole(identity: Identity, role: Role): boolean {
  return identity.roles.includes(role);
}

/** Refuses (FORBIDDEN) anyone but the tenant's admins, naming what only they manage. */
export function assertAdmin(identity: Identity, manages: string): void {
  if (!hasRole(identity, "admin")) throw new ForbiddenError(`Only the tenant's admins manage ${manages}.`);
}
