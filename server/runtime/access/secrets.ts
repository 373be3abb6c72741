/**
 * Secrets a tool keeps for its owner (an API key typed into a private form): sealed under the
 * owner and the provider before they are stored, so the database never holds them in clear. Tools
 * reach this only through `PrivateInputContext.keepSecret`, never the database.
 */
import type { Database } from "@/server/db";
import { saveCredential } from "@/server/db/queries/credentials";
import { seal, sealingKey } from "@/server/crypto/sealing";

export interface SecretOwner {
  tenantId: string;
  userId: string;
}

export function secretKeeper(db: Database, serverSecret: string) {
  const key = sealingKey(serverSecret);
  return async (owner: SecretOwner, provider: string, value: string): Promise<void> => {
    // The associated data binds the sealed value to its row: moved to another owner, it does not open.
    const associated = `${owner.tenantId}/${owner.userId}/${provider}`;
    await saveCredential(db, { ...owner, provider, sealed: seal(key, value, associated) });
  };
}

export type SecretKeeper = ReturnType<typeof secretKeeper>;
