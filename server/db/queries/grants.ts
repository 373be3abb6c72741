/**
 * Standing approvals (`approval_grants`). Each change is one statement that writes its audit entry
 * too. A use and a revoke both update the grant's row, so they take its lock in turn: a use that
 * comes after a revoke committed re-reads the row, sees it revoked, and finds nothing.
 */
import { aliasedTable, and, desc, eq, getTableColumns, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import type { GrantBounds, GrantScope } from "@/server/domain";
import { z } from "zod";
import type { Executor } from "../client";
import { rowCount, rowsOf } from "./rows";
import { grantBoundsCodec } from "../codecs/grant-bounds";
import { approvalGrants, users } from "../schema";

/** A grant as read: its bounds decoded (codecs/grant-bounds.ts). */
export type GrantRow = Omit<typeof approvalGrants.$inferSelect, "bounds" | "boundsVersion"> & { bounds: GrantBounds };

const decoded = <T extends { bounds: unknown; boundsVersion: number }>({ bounds, boundsVersion, ...row }: T) => ({
  ...row,
  bounds: grantBoundsCodec.decode(bounds, boundsVersion),
});

/** A grant to create with the approval that gives it (see `claimInteractions`). */
export interface NewGrant {
  id: string;
  interactionId: string;
  scope: GrantScope;
  agentId: string;
  toolVersion: string;
  bounds: GrantBounds;
  /** How long it lasts from the approval. */
  hours: number;
}

/**
 * The insert of `grants` (of the claimed interactions that were approved) and their audit entries,
 * as CTEs of the claim's statement: a grant exists only if its approval committed.
 */
export function grantsInClaim(grants: readonly (NewGrant & { grantedBy: string })[]): SQL {
  if (grants.length === 0) return sql``;
  return sql`,
    granted as (
      insert into approval_grants (id, tenant_id, owner_id, thread_id, scope, agent_id, tool_name, tool_version, bounds, bounds_version,
        interaction_id, granted_by, expires_at)
      select g.id, i.tenant_id, i.owner_id, case when g.scope = 'thread' then i.thread_id end, g.scope, g."agentId", i.tool_name,
        g."toolVersion", g.bounds, ${grantBoundsCodec.version}::smallint, i.id, g."grantedBy", now() + make_interval(hours => g.hours)
      from jsonb_to_recordset(${JSON.stringify(grants)}::jsonb)
          as g(id text, "interactionId" text, scope text, "agentId" text, "toolVersion" text, bounds jsonb, hours int, "grantedBy" text)
        join interactions i on i.id = g."interactionId"
      -- Only the caller that approved the interaction grants from it (a batch holds several callers).
      where exists (select 1 from claimed c where c.id = g."interactionId" and c.status = 'resolved' and c.user_id = g."grantedBy")
      returning id, tenant_id, interaction_id, tool_name, scope, thread_id, bounds, expires_at, granted_by
    ),
    grants_audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, granted_by, 'grant.create', 'grant', id, 'granted',
        jsonb_build_object('interactionId', interaction_id, 'tool', tool_name, 'scope', scope, 'threadId', thread_id,
          'bounds', bounds, 'expiresAt', expires_at)
      from granted order by tenant_id
    )`;
}

/** A gated call looking for a standing approval. */
export interface GrantLookup {
  tenantId: string;
  ownerId: string;
  threadId: string;
  agentId: string;
  toolName: string;
  /** Every version the tool may be named by (see runtime/binding.ts `toolVersions`). */
  toolVersions: readonly string[];
  args: Record<string, unknown>;
}

/**
 * The oldest live grant that covers the call — same tenant, owner, tool, tool version and agent;
 * this conversation or hours-scoped; arguments within its bounds; not expired or revoked; its
 * giver still able to give it. One indexed query. The use is counted and audited (`grant.use`)
 * with the call's stored result (`appendRunEvents`), not here: a call that never completes used
 * nothing.
 */
export async function findCoveringGrant(db: Executor, call: GrantLookup): Promise<{ id: string; grantedBy: string } | undefined> {
  const args = JSON.stringify(call.args);
  const result = await db.execute(sql`
    select c.id, c.granted_by from approval_grants c
    where c.tenant_id = ${call.tenantId} and c.owner_id = ${call.ownerId} and c.tool_name = ${call.toolName}
      and c.revoked_at is null and c.expires_at > now()
      and c.tool_version = any(${sql.param([...call.toolVersions])}::text[]) and c.agent_id = ${call.agentId}
      and (c.thread_id is null or c.thread_id = ${call.threadId})
      -- Bounds this release cannot read (a newer one wrote them, before a rollback) cover nothing.
      and c.bounds_version <= ${grantBoundsCodec.version}
      -- Its giver may still give it: the owner herself, or still one of the tenant's approvers.
      and exists (
        select 1 from users u
        where u.id = c.granted_by and u.tenant_id = c.tenant_id and (u.id = c.owner_id or u.role in ('approver', 'admin'))
      )
      and not exists (
        select 1 from jsonb_each(c.bounds) as b(field, rule)
        where not coalesce(case
          when b.rule ? 'equals' then (${args}::jsonb -> b.field) = (b.rule -> 'equals')
          when b.rule ? 'atMost' then jsonb_typeof(${args}::jsonb -> b.field) = 'number'
            and (${args}::jsonb ->> b.field)::numeric <= (b.rule ->> 'atMost')::numeric
          else false end, false)
      )
    order by c.created_at limit 1`);
  const [row] = rowsOf(result, z.object({ id: z.string(), granted_by: z.string() }));
  return row ? { id: row.id, grantedBy: row.granted_by } : undefined;
}

export async function grantIsLive(db: Executor, id: string): Promise<boolean> {
  const result = await db.execute(sql`select 1 from approval_grants where id = ${id} and revoked_at is null and expires_at > now()`);
  return rowCount(result) > 0;
}

const owner = aliasedTable(users, "grant_owner");
const grantor = aliasedTable(users, "grantor");

export type GrantListRow = GrantRow & { ownerName: string | null; grantorName: string | null };

/** Live grants of a tenant (expired and revoked ones are history, in the audit log), newest first. */
export async function listGrants(
  db: Executor,
  filter: { tenantId: string; visibleTo: { userId: string; all: boolean } },
): Promise<GrantListRow[]> {
  const mine = or(eq(approvalGrants.ownerId, filter.visibleTo.userId), eq(approvalGrants.grantedBy, filter.visibleTo.userId));
  return db
    .select({
      ...getTableColumns(approvalGrants),
      // A thread's grant names the thread as its client knows it.
      threadId: sql<string | null>`(select coalesce(t.client_id, t.id) from threads t where t.id = ${approvalGrants.threadId})`,
      ownerName: owner.name,
      grantorName: grantor.name,
    })
    .from(approvalGrants)
    .leftJoin(owner, eq(owner.id, approvalGrants.ownerId))
    .leftJoin(grantor, eq(grantor.id, approvalGrants.grantedBy))
    .where(
      and(
        eq(approvalGrants.tenantId, filter.tenantId),
        isNull(approvalGrants.revokedAt),
        gt(approvalGrants.expiresAt, sql`now()`),
        ...(filter.visibleTo.all ? [] : [mine]),
      ),
    )
    .orderBy(desc(approvalGrants.createdAt))
    .limit(200)
    .then((rows) => rows.map(decoded));
}

export async function findGrant(db: Executor, id: string): Promise<GrantRow | undefined> {
  const [row] = await db.select().from(approvalGrants).where(eq(approvalGrants.id, id));
  return row && decoded(row);
}

/**
 * Revokes a live grant, audited (`grant.revoke`) in the same statement, when `actor` may: its
 * owner, its grantor, or (`admin`) anyone of the tenant's admins. False when nothing changed.
 */
export async function revokeGrant(
  db: Executor,
  grant: { id: string; tenantId: string },
  actor: { userId: string; admin: boolean },
): Promise<boolean> {
  const result = await db.execute(sql`
    with revoked as (
      update approval_grants set revoked_at = now(), revoked_by = ${actor.userId}
      where id = ${grant.id} and tenant_id = ${grant.tenantId} and revoked_at is null
        and (${actor.admin} or owner_id = ${actor.userId} or granted_by = ${actor.userId})
      returning id, tenant_id, tool_name, owner_id, uses
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, ${actor.userId}, 'grant.revoke', 'grant', id, 'revoked',
        jsonb_build_object('tool', tool_name, 'ownerId', owner_id, 'uses', uses)
      from revoked
    )
    select id from revoked`);
  return rowCount(result) > 0;
}
