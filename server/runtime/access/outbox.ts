/**
 * The outbox as its users see it: what their approved actions did. Tools write to it only through
 * `ToolContext.recordInOutbox`, in the statement that stores the call's result.
 */
import type { Database } from "@/server/db";
import { listOutbox } from "@/server/db/queries/outbox";
import type { Identity } from "./identity";

export function outboxService(db: Database) {
  return {
    list: async (identity: Identity) =>
      (await listOutbox(db, { tenantId: identity.tenantId, userId: identity.userId })).map((row) => ({
        id: row.id,
        kind: row.kind,
        details: row.details,
        runId: row.runId,
        toolCallId: row.toolCallId,
        approvedBy: row.approvedBy,
        createdAt: row.createdAt.toISOString(),
      })),
  };
}
