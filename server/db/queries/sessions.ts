/**
 * Browser sessions, so signing out ends one on the server (the cookie alone proves nothing then).
 */
import { randomUUID } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../client";
import { sessions } from "../schema";

export async function createSession(db: Executor, userId: string): Promise<string> {
  const id = randomUUID();
  await db.insert(sessions).values({ id, userId });
  return id;
}

export async function revokeSession(db: Executor, id: string): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)));
}
