/**
 * The one privacy rule for conversations: a member reads their own; the tenant's admins — who
 * operate its runs — may read any member's, the same way everywhere (`threads.get`,
 * `runs.timeline`, `runs.events`, the console), and every such read is audited. Private values
 * never enter what they read.
 */
import type { Executor } from "@/server/db";
import { appendAudit } from "@/server/db/queries/audit";
import { ForbiddenError, NotFoundError } from "../errors";
import { hasRole, type Identity } from "./identity";

/**
 * Throws unless `identity` may read a conversation of `owner` in `tenantId`; an admin's read of
 * someone else's is recorded in the audit log.
 */
export async function authorizeConversationRead(
  db: Executor,
  identity: Identity,
  subject: { tenantId: string; ownerId: string; type: "thread" | "run"; id: string; what: string },
): Promise<void> {
  if (subject.tenantId !== identity.tenantId) throw new NotFoundError(subject.what);
  if (subject.ownerId === identity.userId) return;
  if (!hasRole(identity, "admin")) throw new ForbiddenError(`This ${subject.type} belongs to another user.`);
  await appendAudit(db, {
    tenantId: identity.tenantId,
    actorId: identity.userId,
    action: "conversation.read",
    subjectType: subject.type,
    subjectId: subject.id,
    outcome: "read",
    details: { ownerId: subject.ownerId },
  });
}
