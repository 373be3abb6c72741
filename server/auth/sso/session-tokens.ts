/**
 * The provider's tokens kept with a single sign-on session, sealed (AES-256-GCM) with a key of
 * their own and bound to the session's id, so a sealed value copied to another session does not open.
 */
import { z } from "zod";
import { open, seal, sealingKey } from "@/server/crypto/sealing";

export interface SsoTokens {
  accessToken: string;
  /** Absent when the provider gave none (then roles follow it only while the access token lasts). */
  refreshToken?: string;
  /** When the access token expires, ms since epoch. */
  expiresAt?: number;
}

const PURPOSE = "harbor.sso-session.v1";
const Stored = z.object({
  v: z.literal(1),
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.number().optional(),
});

const bound = (sessionId: string) => `sso-session:${sessionId}`;

export function sealTokens(serverSecret: string, sessionId: string, tokens: SsoTokens): string {
  const value: z.infer<typeof Stored> = { v: 1, ...tokens };
  return seal(sealingKey(serverSecret, PURPOSE), JSON.stringify(value), bound(sessionId));
}

/** The tokens, or undefined when they do not open (another secret, another session) or do not parse. */
export function openTokens(serverSecret: string, sessionId: string, sealed: string): SsoTokens | undefined {
  try {
    const parsed = Stored.safeParse(JSON.parse(open(sealingKey(serverSecret, PURPOSE), sealed, bound(sessionId))));
    if (!parsed.success) return undefined;
    const { accessToken, refreshToken, expiresAt } = parsed.data;
    return { accessToken, ...(refreshToken ? { refreshToken } : {}), ...(expiresAt ? { expiresAt } : {}) };
  } catch {
    return undefined;
  }
}
