/**
 * Threads (conversations) and who may see them. Every thread belongs to one user of one tenant:
 * another tenant gets NOT_FOUND (it must not learn the thread exists); another user of the same
 * tenant may not write to it (FORBIDDEN), and only an admin may read it (see conversation-reads.ts).
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@/server/db";
import { findThread, insertThread, listMessages, listThreads, type ThreadRow } from "@/server/db/queries/threads";
import { ForbiddenError, NotFoundError } from "./errors";
import { authorizeConversationRead } from "./conversation-reads";
import type { Identity } from "./identity";

export const DEFAULT_THREAD_TITLE = "New conversation";
const TITLE_LENGTH = 60;

export function titleFrom(text: string | undefined): string {
  const line = text?.trim().split("\n")[0]?.trim();
  if (!line) return DEFAULT_THREAD_TITLE;
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
}

/** Throws unless the identity owns the thread. */
export function assertThreadAccess(thread: Pick<ThreadRow, "tenantId" | "ownerId">, identity: Identity): void {
  if (thread.tenantId !== identity.tenantId) throw new NotFoundError("Thread");
  if (thread.ownerId !== identity.userId) throw new ForbiddenError("This thread belongs to another user.");
}

export function threadService(db: Database) {
  return {
    list: (identity: Identity) => listThreads(db, { tenantId: identity.tenantId, ownerId: identity.userId }),

    create: (identity: Identity, title?: string) =>
      insertThread(db, {
        id: randomUUID(),
        tenantId: identity.tenantId,
        ownerId: identity.userId,
        title: title?.trim() || DEFAULT_THREAD_TITLE,
      }),

    /** The thread and its messages: for its owner, and (audited) for the tenant's admins. */
    get: async (identity: Identity, threadId: string) => {
      const thread = await findThread(db, threadId);
      if (!thread) throw new NotFoundError("Thread");
      await authorizeConversationRead(db, identity, { ...thread, type: "thread", id: thread.id, what: "Thread" });
      return { thread, messages: await listMessages(db, threadId) };
    },
  };
}
