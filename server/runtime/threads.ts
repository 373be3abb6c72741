/**
 * Threads (conversations) and who may see them. Every thread belongs to one user of one tenant:
 * another tenant gets NOT_FOUND (it must not learn the thread exists); another user of the same
 * tenant may not write to it (FORBIDDEN), and only an admin may read it (see conversation-reads.ts).
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@/server/db";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/domain";
import {
  deleteThreads,
  findThread,
  insertThread,
  listMessages,
  listThreadsWithContext,
  threadFamily,
  updateThreadTitle,
  type ThreadRow,
} from "@/server/db/queries/threads";
import { ForbiddenError, HarborError, InvalidInputError, NotFoundError } from "./errors";
import { authorizeConversationRead } from "./conversation-reads";
import type { Identity } from "./identity";

export const DEFAULT_THREAD_TITLE = "New conversation";
const TITLE_LENGTH = 60;
/** The longest title a person may give a thread. */
export const MAX_THREAD_TITLE = 200;

export function titleFrom(text: string | undefined): string {
  const line = text?.trim().split("\n")[0]?.trim();
  if (!line) return DEFAULT_THREAD_TITLE;
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
}

export const ownsThread = (thread: Pick<ThreadRow, "tenantId" | "ownerId">, identity: Identity): boolean =>
  thread.tenantId === identity.tenantId && thread.ownerId === identity.userId;

/** Throws unless the identity owns the thread. */
export function assertThreadAccess(thread: Pick<ThreadRow, "tenantId" | "ownerId">, identity: Identity): void {
  if (thread.tenantId !== identity.tenantId) throw new NotFoundError("Thread");
  if (thread.ownerId !== identity.userId) throw new ForbiddenError("This thread belongs to another user.");
}

export function threadService(db: Database) {
  return {
    /** The caller's own threads, newest first; `search` keeps those whose title or messages contain it. */
    list: (identity: Identity, options: { search?: string } = {}) =>
      listThreadsWithContext(
        db,
        { tenantId: identity.tenantId, ownerId: identity.userId },
        { search: options.search?.trim() || undefined },
      ),

    /** The owner renames their thread; the title is one line, not empty, at most MAX_THREAD_TITLE characters. */
    rename: async (identity: Identity, threadId: string, title: string) => {
      const line = title.replace(/\s+/g, " ").trim();
      if (!line) throw new InvalidInputError("title", "must not be empty");
      if (!isStorableText(line)) throw new InvalidInputError("title", UNSTORABLE_TEXT_MESSAGE);
      if (line.length > MAX_THREAD_TITLE) throw new InvalidInputError("title", `longer than ${MAX_THREAD_TITLE} characters`);
      const thread = await findThread(db, threadId);
      if (!thread) throw new NotFoundError("Thread");
      assertThreadAccess(thread, identity);
      const renamed = await updateThreadTitle(db, threadId, line);
      if (!renamed) throw new NotFoundError("Thread");
      return { id: renamed.id, title: renamed.title };
    },

    /**
     * The owner deletes their thread with its messages, runs and requests, and the threads of the
     * helpers its runs started. A thread (or helper thread) whose run is still queued, running or
     * paused is refused (RUN_STATE_CONFLICT): stop the run first, so nothing disappears under a
     * run that is still working or waiting for someone's answer.
     */
    delete: async (identity: Identity, threadId: string) => {
      const thread = await findThread(db, threadId);
      if (!thread) throw new NotFoundError("Thread");
      assertThreadAccess(thread, identity);
      return db.transaction(async (tx) => {
        const family = await threadFamily(tx, threadId);
        if (family.some((t) => t.live))
          throw new HarborError("RUN_STATE_CONFLICT", "A run on this conversation is still working or waiting: stop it first.");
        return {
          deleted: await deleteThreads(
            tx,
            family.map((t) => t.id),
          ),
        };
      });
    },

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
