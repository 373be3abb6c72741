/**
 * Why a new run's first statement wrote nothing, told to the caller: the thread is someone else's
 * (thrown), or the rules refuse the message (an open interaction, a full workspace or thread, a
 * run in progress that the message may not wait for).
 */
import { activeRunsOnThread } from "@/server/db/queries/runs";
import { storedBytesOf } from "@/server/db/queries/storage";
import { pendingOnThread } from "@/server/db/queries/interactions";
import { countMessages, findThread } from "@/server/db/queries/threads";
import type { MultitaskPolicy } from "@/server/domain";
import { assertThreadAccess, type VerifiedIdentity } from "../access";
import { HarborError } from "../errors";
import type { RefusedRun } from "./run-requests";
import type { RunsDeps } from "./runs-context";

/**
 * `beginRun` wrote nothing: the thread is someone else's (thrown), or waits on an interaction
 * (refused). Undefined when nothing stands in the way any more (it was answered meanwhile).
 */
export async function refuse(
  deps: RunsDeps,
  identity: VerifiedIdentity,
  threadId: string,
  multitask: MultitaskPolicy,
  adding: number,
): Promise<RefusedRun | undefined> {
  const existing = await findThread(deps.db, threadId);
  if (existing) assertThreadAccess(existing, identity);
  const open = await pendingOnThread(deps.db, threadId);
  if (open.length > 0) return pendingInteraction(open.map((r) => r.id));
  const stored = deps.maxTenantStorageBytes ? await storedBytesOf(deps.db, identity.tenantId) : 0;
  if (deps.maxTenantStorageBytes && stored > deps.maxTenantStorageBytes) return quotaExceeded(stored, deps.maxTenantStorageBytes);
  if ((await countMessages(deps.db, threadId)) + adding > deps.maxThreadMessages) {
    return {
      refused: new HarborError(
        "THREAD_FULL",
        `This conversation has reached its length limit (${deps.maxThreadMessages} messages): start a new conversation to go on.`,
      ),
    };
  }
  const running = multitask === "reject" ? await activeRunsOnThread(deps.db, threadId) : [];
  if (running.length > 0) {
    return {
      refused: new HarborError("RUN_IN_PROGRESS", "This conversation's run is still going: wait for it to finish, or cancel it first.", {
        runIds: running,
      }),
    };
  }
  return undefined;
}

function quotaExceeded(stored: number, quota: number): RefusedRun {
  const mb = (bytes: number) => Math.ceil(bytes / 1_048_576);
  return {
    refused: new HarborError(
      "QUOTA_EXCEEDED",
      `Your workspace stores ${mb(stored)} MB, more than its quota of ${mb(quota)} MB: new conversations and messages wait until an admin frees space or raises the quota.`,
      { quota: "storage", limit: quota },
    ),
  };
}

export function pendingInteraction(interruptIds: string[]): RefusedRun {
  return {
    refused: new HarborError(
      "PENDING_INTERACTION",
      "This conversation is waiting for an answer to an open request; answer it before sending anything new.",
      { interruptIds },
    ),
  };
}
