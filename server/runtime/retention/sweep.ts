/**
 * The retention sweep: once per interval across the cluster (the instance that takes the chore's
 * lease), every tenant's conversations untouched for longer than its policy — with their runs,
 * events, interactions, jobs and snapshot states — and its finished webhook messages are deleted in
 * batches, never a conversation whose run is still queued, running or waiting. Audit rows past the
 * tenant's audit retention go too, after an anchor records the hash they end on, so the chain that
 * remains still verifies from it.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { appendAudit } from "@/server/db/queries/audit";
import {
  auditCut,
  claimChore,
  deleteAuditUpTo,
  deleteConversations,
  deleteDeliveries,
  effectivePolicies,
  finishChore,
  insertAnchor,
} from "@/server/db/queries/retention";

export const RETENTION_CHORE = "retention";
export const DAY_MS = 86_400_000;
/** How long the instance that sweeps holds the chore: another takes it over only after, should it die. */
const LEASE_MS = 15 * 60_000;

export interface RetentionSettings {
  /** The deployment's defaults, for tenants without a policy of their own; 0 keeps everything. */
  conversationDays: number;
  auditDays: number;
  /** How often the sweep runs, cluster-wide. */
  everyMs: number;
  /** Rows per delete statement. */
  batch: number;
}

export interface SweepDeps {
  db: Database;
  log: Pick<Logger, "info" | "error">;
  instanceId: string;
  retention: RetentionSettings;
}

export interface TenantSweep {
  tenantId: string;
  conversations: number;
  deliveries: number;
  auditRows: number;
}

/** Deletes in batches until a batch comes back short. */
export async function drain(batch: number, deleteSome: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteSome();
    total += deleted;
    if (deleted < batch) return total;
  }
}

async function sweepTenant(
  deps: SweepDeps,
  policy: { tenantId: string; conversationDays: number; auditDays: number },
): Promise<TenantSweep> {
  const { db, retention } = deps;
  const { tenantId } = policy;
  const swept: TenantSweep = { tenantId, conversations: 0, deliveries: 0, auditRows: 0 };
  if (policy.conversationDays > 0) {
    const before = new Date(Date.now() - policy.conversationDays * DAY_MS);
    swept.conversations = await drain(retention.batch, () => deleteConversations(db, { tenantId, before }, retention.batch));
    swept.deliveries = await drain(retention.batch, () => deleteDeliveries(db, tenantId, before, retention.batch));
  }
  if (policy.auditDays > 0) {
    const cut = await auditCut(db, tenantId, new Date(Date.now() - policy.auditDays * DAY_MS));
    if (cut) {
      // The anchor first: the delete trigger allows only rows at or below one.
      await insertAnchor(db, { tenantId, seq: cut.seq, hash: cut.hash, removed: cut.count });
      swept.auditRows = await drain(retention.batch, () => deleteAuditUpTo(db, tenantId, cut.seq, retention.batch));
    }
  }
  if (swept.conversations + swept.deliveries + swept.auditRows > 0) {
    await appendAudit(db, {
      tenantId,
      actorId: null,
      action: "retention.sweep",
      subjectType: "tenant",
      subjectId: tenantId,
      outcome: "deleted",
      details: {
        conversations: swept.conversations,
        deliveries: swept.deliveries,
        auditRows: swept.auditRows,
        conversationDays: policy.conversationDays,
        auditDays: policy.auditDays,
      },
    });
  }
  return swept;
}

/**
 * Sweeps every tenant when this instance takes the chore (it is due, and nobody holds it); what it
 * deleted per tenant, or undefined when it was not this instance's turn.
 */
export async function sweepRetention(deps: SweepDeps, force = false): Promise<TenantSweep[] | undefined> {
  const everyMs = force ? 0 : deps.retention.everyMs;
  if (!(await claimChore(deps.db, RETENTION_CHORE, deps.instanceId, everyMs, LEASE_MS))) return undefined;
  const results: TenantSweep[] = [];
  try {
    const policies = await effectivePolicies(deps.db, deps.retention);
    for (const policy of policies) {
      if (policy.conversationDays > 0 || policy.auditDays > 0) results.push(await sweepTenant(deps, policy));
    }
  } finally {
    const removed = results.filter((r) => r.conversations + r.deliveries + r.auditRows > 0);
    await finishChore(deps.db, RETENTION_CHORE, deps.instanceId, { tenants: removed });
  }
  if (results.some((r) => r.conversations + r.deliveries + r.auditRows > 0))
    deps.log.info({ swept: results }, "retention sweep deleted old data");
  return results;
}
