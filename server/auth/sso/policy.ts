/**
 * What single sign-on decides from a provider's claims, without any I/O: whose email it is, which
 * tenant its domain signs in to, and which role the role claim gives. The settings say the mapping
 * (HARBOR_SSO_DOMAINS, HARBOR_SSO_ROLE_CLAIM, HARBOR_SSO_ROLES); this file only reads it.
 */
import { z } from "zod";
import type { SsoSettings } from "@/server/config";
import { ROLES, type Role } from "@/server/domain";

/** Auth.js's id for the provider: its callback is `/api/auth/callback/sso`. */
export const SSO_PROVIDER_ID = "sso";

/** `email_verified` as providers send it: a boolean, or (some) the text "true"/"false". */
const verifiedFlag = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

/** The claims Harbor reads; the others stay, for the role claim (whatever its name). */
export const SsoClaims = z.looseObject({
  sub: z.string().min(1).max(255),
  // Checked before it is lowercased: Unicode case folding turns look-alikes (the Kelvin sign) into ASCII.
  email: z
    .string()
    .trim()
    .pipe(z.email().max(320))
    .transform((v) => v.toLowerCase())
    .optional(),
  email_verified: verifiedFlag.optional(),
  name: z.string().trim().max(200).optional(),
  preferred_username: z.string().trim().max(200).optional(),
});
export type SsoClaims = z.infer<typeof SsoClaims>;

export type SsoPolicy = Pick<SsoSettings, "domains" | "roleClaim" | "roles" | "linkByEmail">;

/** The email, only when the provider says it verified it (an absent `email_verified` is not a yes). */
export function verifiedEmail(claims: SsoClaims): string | undefined {
  return claims.email_verified === true ? claims.email : undefined;
}

/** The slug of the tenant an email's domain signs in to, if the deployment maps that domain. */
export function tenantSlugFor(email: string, policy: SsoPolicy): string | undefined {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return Object.hasOwn(policy.domains, domain) ? policy.domains[domain] : undefined;
}

/**
 * The role claim's values: the claim by its exact name, or else a dotted path into nested claims
 * (`realm_access.roles`). A single string is one value; a list keeps its strings.
 */
function roleClaimValues(claims: Record<string, unknown>, name: string): string[] {
  let value: unknown = claims[name];
  if (value === undefined && name.includes(".")) {
    value = name
      .split(".")
      .reduce<unknown>((at, key) => (at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined), claims);
  }
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * The highest role any of the claim's values maps to; member when none does. Undefined when the
 * deployment maps no values at all: then the provider says nothing about roles, and a user keeps
 * the one Harbor gave them (a new user is a member).
 */
export function roleFromClaims(claims: Record<string, unknown>, policy: SsoPolicy): Role | undefined {
  if (Object.keys(policy.roles).length === 0) return undefined;
  let highest = 0;
  for (const value of roleClaimValues(claims, policy.roleClaim)) {
    const role = Object.hasOwn(policy.roles, value) ? policy.roles[value] : undefined;
    if (role) highest = Math.max(highest, ROLES.indexOf(role));
  }
  return ROLES[highest] ?? "member";
}

/** The name a new user gets: the provider's, or the email's local part. */
export function displayName(claims: SsoClaims, email: string): string {
  return claims.name || claims.preferred_username || email.slice(0, email.lastIndexOf("@"));
}
