/**
 * Threads (conversations) and who may see them. Every thread belongs to one user of one tenant:
 * another tenant gets NOT_FOUND (it must not learn the thread exists); another user of the same
 * tenant may not write to it (FORBIDDEN), and only an admin may read it (see conversation-reads.ts).
 *
 * Clients choose thread ids (AG-UI's `threadId`), so the ids are scoped to their tenant: when
 * another tenant already holds an id, this tenant's thread of that id is stored under an id of its
 * own (`tenantThreadId`, an HMAC of the tenant and the id with the server's secret, which nobody
 * else can compute or take first). Another tenant's id then behaves exactly like an unused one.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { Database } from "@/server/db";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/domain";
import { threadRuns } from "@/server/db/queries/runs";
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
import { ForbiddenError, HarborError, InvalidInputError, NotFoundError } from "../errors";
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

/**
 * The thread id is another tenant's. Answered as NOT_FOUND, like an unused id; callers that take a
 * client's id go on with the tenant's own id for it (`tenantThreadId`).
 */
export class ForeignThreadError extends NotFoundError {
  constructor() {
    super("Thread");
  }
}

/** Where a tenant's thread of `clientId` is stored when another tenant holds `clientId` itself. */
export function tenantThreadId(secret: string, tenantId: string, clientId: string): string {
  const mac = createHmac("sha256", secret).update(["harbor.thread-id", tenantId, clientId].join("\u0000")).digest("base64url");
  return `t-${mac.slice(0, 40)}`;
}

/** The ids a tenant's thread known to its client as `clientId` may be stored under. */
export const storedThreadIds = (secret: string, tenantId: string, clientId: string): string[] => [
  clientId,
  tenantThreadId(secret, tenantId, clientId),
];

/** A thread as its tenant sees it: under the id its client knows. */
export function threadView<T extends Pick<ThreadRow, "id" | "clientId">>(thread: T): Omit<T, "clientId"> {
  const { clientId, ...rest } = thread;
  return { ...rest, id: clientId ?? thread.id };
}

/** Throws unless the identity owns the thread. */
export function assertThreadAccess(thread: Pick<ThreadRow, "tenantId" | "ownerId">, identity: Identity): void {
  if (thread.tenantId !== identity.tenantId) throw new ForeignThreadError();
  if (thread.ownerId !== identity.userId) throw new ForbiddenError("This thread belongs to another user.");
}

/**
 * The thread the caller's tenant knows as `threadId`: its own of that id, or its own under
 * `tenantThreadId`. NOT_FOUND when the tenant has none (whoever else holds the id).
 */
export async function findTenantThread(db: Database, secret: string, identity: Identity, threadId: string): Promise<ThreadRow> {
  const thread = await findThread(db, threadId);
  const own =
    thread && thread.tenantId !== identity.tenantId ? await findThread(db, tenantThreadId(secret, identity.tenantId, threadId)) : thread;
  if (!own) throw new NotFoundError("Thread");
  return own;
}

export function threadService(db: Database, secret: string) {
  const tenantThread = (identity: Identity, threadId: string) => findTenantThread(db, secret, identity, threadId);
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
      const thread = await tenantThread(identity, threadId);
      assertThreadAccess(thread, identity);
      const renamed = await updateThreadTitle(db, thread.id, line);
      if (!renamed) throw new NotFoundError("Thread");
      return { id: threadView(renamed).id, title: renamed.title };
    },

    /**
     * The owner deletes their thread with its messages, runs and requests, and the threads of the
     * helpers its runs started. A thread (or helper thread) whose run is still queued, running or
     * paused is refused (RUN_STATE_CONFLICT): stop the run first, so nothing disappears under a
     * run that is still working or waiting for someone's answer.
     */
    delete: async (identity: Identity, threadId: string) => {
      const thread = await tenantThread(identity, threadId);
      assertThreadAccess(thread, identity);
      return db.transaction(async (tx) => {
        const family = await threadFamily(tx, thread.id);
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

    /**
     * The thread, its messages, its runs still queued or running (oldest first) — a page that opens
     * the conversation attaches to those (`runs.events`) to show their text as it comes — and its
     * latest run, whose failure the page shows with Retry (also one that ended while nobody watched:
     * its instance died). For its owner, and (audited) for the tenant's admins.
     */
    get: async (identity: Identity, threadId: string) => {
      const thread = await tenantThread(identity, threadId);
      await authorizeConversationRead(db, identity, { ...thread, type: "thread", id: thread.id, what: "Thread" });
      // Runs first: a run that ends between the two reads has its messages in the second.
      const { liveRunIds, latestRun } = await threadRuns(db, thread.id);
      return { thread: threadView(thread), messages: await listMessages(db, thread.id), liveRunIds, latestRun };
    },
  };
}
