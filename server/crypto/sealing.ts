/**
 * Authenticated encryption for secrets users hand us (AES-256-GCM), with a key derived from the
 * server secret for this purpose alone. The sealed form binds the owner and provider as associated
 * data, so a sealed value copied to another row does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key for one purpose (credentials by default; requests forwarded between instances use their own). */
export function sealingKey(serverSecret: string, purpose = "harbor.credentials.v1"): Buffer {
  return Buffer.from(hkdfSync("sha256", serverSecret, "harbor", purpose, 32));
}

export function seal(key: Buffer, plaintext: string, associated: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(associated));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

export function open(key: Buffer, sealed: string, associated: string): string {
  const bytes = Buffer.from(sealed, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associated));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
}
