/**
 * Runs as people and programs see them: listings, one run, its timeline, and steering. Members see
 * their own runs; admins every run of their tenant; other tenants nothing.
 */
import type { Database } from "@/server/db";
import { listRunEvents, listRuns, sumUsage } from "@/server/db/queries/runs";
import { authorizeConversationRead } from "./conversation-reads";
import { NotFoundError } from "../errors";
import { hasRole, type Identity } from "./identity";
import type { SteeringInstruction } from "@/server/domain";

/** Events per timeline page; ask again with the last seq for more. */
const TIMELINE_PAGE = 500;

export function runAccess(
  db: Database,
  steer: (identity: Identity, runId: string, instruction: SteeringInstruction) => Promise<{ accepted: true }>,
) {
  const scope = (identity: Identity) => ({
    tenantId: identity.tenantId,
    ...(hasRole(identity, "admin") ? {} : { ownerId: identity.userId }),
  });

  async function get(identity: Identity, runId: string) {
    const [run] = await listRuns(db, { ...scope(identity), runId, limit: 1 });
    if (!run) throw new NotFoundError("Run");
    return run;
  }

  return {
    list: (identity: Identity, filter: { status?: string; reason?: string; q?: string } = {}) =>
      listRuns(db, { ...scope(identity), ...filter }),
    get,
    /** Tokens spent by the runs one may list (the tenant's for admins, one's own for members), since `since`. */
    usage: (identity: Identity, since?: Date) => sumUsage(db, { ...scope(identity), since }),
    /** The run's event log after `afterSeq`, a page at a time (private values never enter it). */
    timeline: async (identity: Identity, runId: string, afterSeq = 0) => {
      const run = await get(identity, runId);
      await authorizeConversationRead(db, identity, {
        tenantId: identity.tenantId,
        ownerId: run.ownerId,
        type: "run",
        id: runId,
        what: "Run",
      });
      return (await listRunEvents(db, runId, afterSeq, TIMELINE_PAGE)).map((e) => ({
        seq: e.seq,
        at: e.createdAt.toISOString(),
        event: e.data,
      }));
    },
    steer,
  };
}
