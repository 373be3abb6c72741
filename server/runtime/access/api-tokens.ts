/**
 * Accounts: the caller's profile and their bearer API tokens (256 random bits, shown once,
 * stored only as a SHA-256 hash, revocable, every change audited).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Database, Executor } from "@/server/db";
import { insertToken, listTokens, revokeToken, type TokenRow } from "@/server/db/queries/tokens";
import { appendAudit } from "@/server/db/queries/audit";
import { findUserProfile } from "@/server/db/queries/users";
import { NotFoundError } from "../errors";
import type { Identity } from "./identity";

export const TOKEN_PREFIX = "hbr_";
const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** How long a token lives unless asked otherwise, and at most. */
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 365;

export async function createApiToken(
  db: Executor,
  identity: Identity,
  name: string,
  expiresInDays = DEFAULT_TOKEN_DAYS,
): Promise<{ token: string; info: TokenRow }> {
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const info = await insertToken(db, {
    id: randomUUID(),
    tenantId: identity.tenantId,
    userId: identity.userId,
    name,
    tokenHash: hashToken(token),
    prefix: token.slice(0, DISPLAY_PREFIX_LENGTH),
    expiresAt: new Date(Date.now() + expiresInDays * 24 * 3600_000),
  });
  await appendAudit(db, {
    tenantId: identity.tenantId,
    actorId: identity.userId,
    action: "token.create",
    subjectType: "api_token",
    subjectId: info.id,
    outcome: "created",
    details: { name, expiresInDays },
  });
  return { token, info };
}

export function listApiTokens(db: Executor, identity: Identity): Promise<TokenRow[]> {
  return listTokens(db, { tenantId: identity.tenantId, userId: identity.userId });
}

export async function revokeApiToken(db: Executor, identity: Identity, tokenId: string): Promise<void> {
  const revoked = await revokeToken(db, { tenantId: identity.tenantId, userId: identity.userId }, tokenId);
  if (!revoked) throw new NotFoundError("Token");
  await appendAudit(db, {
    tenantId: identity.tenantId,
    actorId: identity.userId,
    action: "token.revoke",
    subjectType: "api_token",
    subjectId: tokenId,
    outcome: "revoked",
  });
}

export function accountService(db: Database) {
  return {
    profile: async (identity: Identity) => {
      const profile = await findUserProfile(db, identity.userId);
      if (!profile) throw new NotFoundError("User");
      return profile;
    },
    createToken: (identity: Identity, name: string, expiresInDays?: number) => createApiToken(db, identity, name, expiresInDays),
    listTokens: (identity: Identity) => listApiTokens(db, identity),
    revokeToken: (identity: Identity, tokenId: string) => revokeApiToken(db, identity, tokenId),
  };
}
