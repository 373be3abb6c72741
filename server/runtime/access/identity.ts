import type { CredentialCheck, Role } from "@/server/domain";

/**
 * Who is acting. Derived only from the Auth.js session or a bearer API token
 * (see `server/auth/identity.ts`) — never read from a request body.
 */
export interface Identity {
  readonly tenantId: string;
  readonly userId: string;
  /** The roles the user holds; higher roles include the lower ones. */
  readonly roles: readonly Role[];
  /**
   * Set when the identity was remembered rather than looked up for this request: the run's first
   * write checks the credential (see `credentialHoldsFor`), and anything that would read first
   * refuses it with `StaleCredentialError`, so the caller looks it up and tries again.
   */
  readonly unverified?: CredentialCheck;
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
