/**
 * Decision links: who may get one for a gate, and which links were used (insert-once, so a link
 * decides at most once even when two clicks race).
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf, voteSchema } from "./rows";
import { decisionLinkUses } from "../schema";
import {
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  RESOLVER_POLICIES,
  type InteractionKind,
  type InteractionStatus,
  type ResolverPolicy,
  type Vote,
} from "@/server/domain";

export interface LinkGate {
  id: string;
  tenantId: string;
  ownerId: string;
  kind: InteractionKind;
  policy: ResolverPolicy;
  status: InteractionStatus;
  expiresAt: Date;
  votes: Vote[];
  /** The tenant's approvers and admins but the requester, by name: the people a link is minted for. */
  approvers: { id: string; email: string; name: string }[];
}

/** A gate with the approvers who may decide it, or undefined when there is no such interaction. */
export async function gateWithApprovers(db: Executor, interactionId: string): Promise<LinkGate | undefined> {
  // Every column qualified: inside the subquery an unqualified name would be the user's own.
  const result = await db.execute(sql`
    select i.id, i.tenant_id, i.owner_id, i.kind, i.policy, i.status, i.expires_at, i.votes,
      (select coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'email', u.email, 'name', u.name) order by u.name, u.id), '[]'::jsonb)
       from users u
       where u.tenant_id = i.tenant_id and u.role in ('approver', 'admin') and u.id <> i.owner_id) as approvers
    from interactions i
    where i.id = ${interactionId}`);
  const [row] = rowsOf(
    result,
    z.object({
      id: z.string(),
      tenant_id: z.string(),
      owner_id: z.string(),
      kind: z.enum(INTERACTION_KINDS),
      policy: z.enum(RESOLVER_POLICIES),
      status: z.enum(INTERACTION_STATUSES),
      expires_at: column.date,
      votes: z.array(voteSchema),
      approvers: z.array(z.object({ id: z.string(), email: z.string(), name: z.string() })),
    }),
  );
  return (
    row && {
      id: row.id,
      tenantId: row.tenant_id,
      ownerId: row.owner_id,
      kind: row.kind,
      policy: row.policy,
      status: row.status,
      expiresAt: row.expires_at,
      votes: row.votes,
      approvers: row.approvers,
    }
  );
}

export interface LinkUse {
  jti: string;
  tenantId: string;
  interactionId: string;
  userId: string;
  decision: "approve" | "reject";
  usedAt: Date;
}

/** Records a link's use; false when it was used already (the row exists: nothing changes). */
export async function claimLinkUse(db: Executor, use: Omit<LinkUse, "usedAt">): Promise<boolean> {
  const inserted = await db.insert(decisionLinkUses).values(use).onConflictDoNothing().returning({ jti: decisionLinkUses.jti });
  return inserted.length > 0;
}

/** Gives a claimed use back: the decision it was for did not happen (refused or failed). */
export async function releaseLinkUse(db: Executor, jti: string, tenantId: string): Promise<void> {
  await db.delete(decisionLinkUses).where(and(eq(decisionLinkUses.jti, jti), eq(decisionLinkUses.tenantId, tenantId)));
}

export async function findLinkUse(db: Executor, jti: string, tenantId: string): Promise<LinkUse | undefined> {
  const [row] = await db
    .select()
    .from(decisionLinkUses)
    .where(and(eq(decisionLinkUses.jti, jti), eq(decisionLinkUses.tenantId, tenantId)))
    .limit(1);
  return row;
}
