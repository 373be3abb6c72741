/**
 * The secret that signs and encrypts session cookies. `AUTH_SECRET` wins; the embedded default
 * generates one on first start and keeps it in the data folder so sessions survive restarts.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { settings } from "@/server/config";

let cached: string | undefined;

export function authSecret(): string {
  if (cached) return cached;
  const s = settings();
  if (s.authSecret) return (cached = s.authSecret);
  const file = path.join(s.dataDir, "auth-secret");
  fs.mkdirSync(s.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return (cached = fs.readFileSync(file, "utf8").trim());
}
