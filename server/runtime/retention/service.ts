/**
 * Retention as a tenant's admins see it: the policy (their own days, or the deployment's), what the
 * next sweep will delete and when, changing the policy, and erasing one user's conversations on
 * request. Every change is audited; only admins may read or change any of it.
 */
import { appendAudit } from "@/server/db/queries/audit";
import {
  auditCut,
  conversationsPast,
  countHeldConversations,
  deleteConversations,
  findChore,
  findPolicy,
  latestAnchor,
  savePolicy,
  usersWithConversations,
} from "@/server/db/queries/retention";
import { findUserInTenant } from "@/server/db/queries/users";
import { assertAdmin, verifiedOnly, type Identity } from "../access";
import { NotFoundError } from "../errors";
import { DAY_MS, drain, RETENTION_CHORE, sweepRetention, type SweepDeps } from "./sweep";

export interface RetentionView {
  /** The days in force, and whether they are the tenant's own or the deployment's. */
  conversationDays: number;
  auditDays: number;
  own: { conversationDays: number | null; auditDays: number | null };
  defaults: { conversationDays: number; auditDays: number };
  lastSweepAt: Date | null;
  nextSweepAt: Date;
  /** What the next sweep deletes (counted now): conversations untouched before `before`, and audit rows. */
  next: {
    conversations: { before: Date; count: number } | null;
    audit: { before: Date; rows: number } | null;
  };
  oldestConversationAt: Date | null;
  /** Where the tenant's audit chain enters, once its oldest rows were removed. */
  auditAnchor: { seq: number; hash: string; createdAt: Date } | null;
}

export function retentionService(deps: SweepDeps) {
  const { db, retention } = deps;

  async function view(identity: Identity): Promise<RetentionView> {
    assertAdmin(identity, "data retention");
    const tenantId = identity.tenantId;
    const own = await findPolicy(db, tenantId);
    const conversationDays = own.conversationDays ?? retention.conversationDays;
    const auditDays = own.auditDays ?? retention.auditDays;
    const chore = await findChore(db, RETENTION_CHORE);
    const lastSweepAt = chore?.lastRunAt ?? null;
    const nextSweepAt = new Date(Math.max(Date.now(), (lastSweepAt?.getTime() ?? 0) + retention.everyMs));
    // Counted as of the next sweep: what will be past the policy by then.
    const conversationsBefore = new Date(nextSweepAt.getTime() - conversationDays * DAY_MS);
    const past = await conversationsPast(db, tenantId, conversationsBefore);
    const auditBefore = new Date(nextSweepAt.getTime() - auditDays * DAY_MS);
    const auditRows = auditDays > 0 ? ((await auditCut(db, tenantId, auditBefore))?.count ?? 0) : 0;
    return {
      conversationDays,
      auditDays,
      own: { conversationDays: own.conversationDays, auditDays: own.auditDays },
      defaults: { conversationDays: retention.conversationDays, auditDays: retention.auditDays },
      lastSweepAt,
      nextSweepAt,
      next: {
        conversations: conversationDays > 0 ? { before: conversationsBefore, count: past.count } : null,
        audit: auditDays > 0 ? { before: auditBefore, rows: auditRows } : null,
      },
      oldestConversationAt: past.oldest,
      auditAnchor: (await latestAnchor(db, tenantId)) ?? null,
    };
  }

  return {
    view,
    /** Sets the tenant's own days (null: the deployment's), audited with what they were. */
    async set(identity: Identity, policy: { conversationDays: number | null; auditDays: number | null }): Promise<RetentionView> {
      assertAdmin(identity, "data retention");
      const verified = verifiedOnly(identity);
      const before = await findPolicy(db, verified.tenantId);
      await db.transaction(async (tx) => {
        await savePolicy(tx, verified.tenantId, policy, verified.userId);
        await appendAudit(tx, {
          tenantId: verified.tenantId,
          actorId: verified.userId,
          action: "retention.policy",
          subjectType: "tenant",
          subjectId: verified.tenantId,
          outcome: "changed",
          details: { from: { conversationDays: before.conversationDays, auditDays: before.auditDays }, to: policy },
        });
      });
      return view(identity);
    },
    /**
     * Erases every conversation of one user of the tenant (with its runs, events and interactions),
     * whatever its age; conversations a run still holds are kept and counted. Audited.
     */
    async eraseUser(identity: Identity, userId: string): Promise<{ erased: number; kept: number }> {
      assertAdmin(identity, "data retention");
      const verified = verifiedOnly(identity);
      if (!(await findUserInTenant(db, verified.tenantId, userId))) throw new NotFoundError("User");
      const erased = await drain(retention.batch, () =>
        deleteConversations(db, { tenantId: verified.tenantId, ownerId: userId }, retention.batch),
      );
      const kept = await countHeldConversations(db, verified.tenantId, userId);
      await appendAudit(db, {
        tenantId: verified.tenantId,
        actorId: verified.userId,
        action: "retention.erase_user",
        subjectType: "user",
        subjectId: userId,
        outcome: "erased",
        details: { conversations: erased, keptWhileRunning: kept },
      });
      return { erased, kept };
    },
    /** The tenant's users and how many conversations each has: whom an erasure can be asked for. */
    async users(identity: Identity) {
      assertAdmin(identity, "data retention");
      return usersWithConversations(db, identity.tenantId);
    },
    /** Sweeps now if it is this instance's turn (the interval's timer does it by itself). */
    sweep: (force = false) => sweepRetention(deps, force),
  };
}

export type RetentionService = ReturnType<typeof retentionService>;
