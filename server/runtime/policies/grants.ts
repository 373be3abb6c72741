/**
 * Standing approvals: "approve, and allow this tool within these bounds for this conversation / for
 * the next N hours". A tool declares which arguments a grant may bind (`approval.grantable`); the
 * gate offers the bounds taken from its call; the approval may take the offer (`grant` in the
 * answer), and the grant is created in the same statement as the approval. A later call the grant
 * covers passes its gate without a pause (`standingApproval`), recorded in the run's log and the
 * audit with the grant's id.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Database } from "@/server/db";
import type { InteractionRow } from "@/server/db/queries/interactions";
import { findCoveringGrant, findGrant, grantIsLive, listGrants, revokeGrant, type NewGrant } from "@/server/db/queries/grants";
import { GRANT_SCOPES, MAX_GRANT_HOURS, THREAD_GRANT_DAYS, type GrantBounds, type GrantOffer } from "@/server/domain";
import { toolVersion, toolVersions } from "../agent";
import { ForbiddenError, InvalidInputError, NotFoundError } from "../errors";
import { hasRole, type Identity } from "../access";
import type { AgentDefinition, AgentRegistry } from "../agent";
import type { GrantableField, ServerToolDefinition, ToolDefinition } from "../agent";

/** The `grant` of an approval's answer: where the standing approval applies, and any raised caps. */
export const GrantRequest = z
  .strictObject({
    scope: z.enum(GRANT_SCOPES),
    /** For `hours`: how long, 1 to 72. */
    hours: z.number().int().min(1).max(MAX_GRANT_HOURS).optional(),
    /** Raised caps, by argument (each between the approved value and the tool's declared limit). */
    caps: z.record(z.string().max(64), z.number().finite().positive()).optional(),
  })
  .refine((g) => (g.scope === "hours") === (g.hours !== undefined), {
    message: "hours is required with scope hours, and only with it",
    path: ["hours"],
  });
export type GrantRequest = z.infer<typeof GrantRequest>;

const isBindable = (v: unknown): v is string | number | boolean =>
  typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

/**
 * What the gate in front of this call may grant: undefined when the tool declares nothing grantable,
 * when the gate needs several approvers (a standing approval would let one approver stand in for a
 * quorum on every later call), or when a bound argument has no value to bind.
 */
export function grantOffer(
  agent: AgentDefinition,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  quorum: number,
): GrantOffer | undefined {
  const grantable = "approval" in definition ? definition.approval?.grantable : undefined;
  if (!grantable || quorum > 1) return undefined;
  const bounds: GrantBounds = {};
  const caps: NonNullable<GrantOffer["caps"]> = [];
  for (const [field, bind] of Object.entries(grantable.fields as Record<string, GrantableField | undefined>)) {
    const value = args[field];
    if (bind === "equal") {
      if (!isBindable(value)) return undefined;
      bounds[field] = { equals: value };
    } else if (bind) {
      if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
      bounds[field] = { atMost: value };
      caps.push({ field, approved: value, limit: Math.max(value, bind.atMost) });
    }
  }
  return {
    bounds,
    summary: grantable.describe(bounds),
    ...(caps.length > 0 ? { caps } : {}),
    toolVersion: toolVersion(definition),
    agentId: agent.id,
  };
}

/**
 * The grant an approval asks for, checked against its gate's offer: only approval gates with an
 * offer, one approver (no quorum), never the requester of an `approvers` gate (four eyes), caps
 * between the approved value and the declared limit.
 */
export function grantFor(row: InteractionRow, request: GrantRequest, actorId: string, field: string): NewGrant {
  // One approver's standing approval would stand in for a quorum on every later call.
  if (row.quorum > 1) {
    throw new InvalidInputError(field, "a gate that needs several approvers cannot be approved in advance by one of them");
  }
  const offer = row.detail?.grant;
  if (row.kind !== "approval" || !offer?.toolVersion || !offer.agentId) {
    throw new InvalidInputError(field, "this request offers no standing approval");
  }
  if (row.policy === "approvers" && row.ownerId === actorId) {
    throw new ForbiddenError("You cannot give a standing approval for your own requests: another approver must.");
  }
  // An owner's gate decided by someone else (an escalation) is one decision, never a blanket one for her.
  if (row.policy === "owner" && row.ownerId !== actorId) {
    throw new ForbiddenError("Only the requester can approve her own requests in advance.");
  }
  const bounds: GrantBounds = { ...offer.bounds };
  for (const [name, cap] of Object.entries(request.caps ?? {})) {
    const declared = offer.caps?.find((c) => c.field === name);
    if (!declared) throw new InvalidInputError(`${field}.caps.${name}`, "this argument has no cap to raise");
    if (cap < declared.approved || cap > declared.limit) {
      throw new InvalidInputError(`${field}.caps.${name}`, `must be between ${declared.approved} and ${declared.limit}`);
    }
    bounds[name] = { atMost: cap };
  }
  return {
    id: randomUUID(),
    interactionId: row.id,
    scope: request.scope,
    agentId: offer.agentId,
    toolVersion: offer.toolVersion,
    bounds,
    hours: request.scope === "hours" ? request.hours! : THREAD_GRANT_DAYS * 24,
  };
}

/** The bounds in words when the tool no longer describes them (it changed, or left the agent). */
function plainWords(toolName: string, bounds: GrantBounds): string {
  const parts = Object.entries(bounds).map(([field, b]) => ("equals" in b ? `${field} = ${String(b.equals)}` : `${field} ≤ ${b.atMost}`));
  return parts.length > 0 ? `${toolName} with ${parts.join(", ")}` : `any ${toolName}`;
}

/**
 * The tools an owner held live standing approvals for, as the statement that began her run saw
 * them (`beginRun`). For a moment after, a gated call of any other tool skips the lookup: a grant
 * given within that moment was given concurrently with the call, which then asks as if it had
 * come just before. A snapshot only ever spares a lookup; it never lets a call through.
 */
export interface GrantSnapshot {
  tools: ReadonlySet<string>;
  seenAt: number;
}

/** How long a snapshot rules grants out: the first steps of a run, not a model's long thinking. */
export const GRANT_SNAPSHOT_MS = 1000;

/** Whether the snapshot shows that no grant can cover a call of `toolName` now. */
export function rulesOutGrant(snapshot: GrantSnapshot | undefined, toolName: string, now = Date.now()): boolean {
  return snapshot !== undefined && now - snapshot.seenAt <= GRANT_SNAPSHOT_MS && !snapshot.tools.has(toolName);
}

/** A standing approval a call fell within: who gave it. */
export interface StandingApproval {
  grantId: string;
  grantedBy: string;
}

export function grantService(db: Database, agents: AgentRegistry) {
  const toolOf = (agentId: string, name: string): ServerToolDefinition | undefined => {
    const tool = agents.get(agentId)?.tools.get(name);
    return tool && (tool.kind ?? "server") === "server" ? (tool as ServerToolDefinition) : undefined;
  };
  return {
    /**
     * The grant covering a gated call — or undefined: the call pauses. Its use is counted and
     * audited with the call's stored result (see `findCoveringGrant`). No statement when
     * `snapshot` rules one out.
     */
    async covering(
      call: { tenantId: string; ownerId: string; threadId: string; args: Record<string, unknown> },
      agent: AgentDefinition,
      definition: ToolDefinition,
      snapshot?: GrantSnapshot,
    ): Promise<StandingApproval | undefined> {
      if (rulesOutGrant(snapshot, definition.name)) return undefined;
      const found = await findCoveringGrant(db, {
        ...call,
        agentId: agent.id,
        toolName: definition.name,
        toolVersions: toolVersions(definition),
      });
      return found && { grantId: found.id, grantedBy: found.grantedBy };
    },

    /** Whether a grant is still live: a call it let through before the run parked runs only then. */
    isLive: (grantId: string) => grantIsLive(db, grantId),

    /** Live grants the caller gave or may use; a tenant's admins see all of the tenant's. */
    async list(identity: Identity) {
      const rows = await listGrants(db, {
        tenantId: identity.tenantId,
        visibleTo: { userId: identity.userId, all: hasRole(identity, "admin") },
      });
      return rows.map((row) => {
        const tool = toolOf(row.agentId, row.toolName);
        const current = tool !== undefined && toolVersions(tool).includes(row.toolVersion);
        return {
          grantId: row.id,
          toolName: row.toolName,
          toolTitle: tool?.title ?? row.toolName,
          agentId: row.agentId,
          summary:
            current && tool.approval?.grantable ? tool.approval.grantable.describe(row.bounds) : plainWords(row.toolName, row.bounds),
          /** False when the tool changed since: the grant no longer lets anything through. */
          current,
          bounds: row.bounds,
          scope: row.scope,
          threadId: row.threadId,
          owner: { id: row.ownerId, name: row.ownerName, you: row.ownerId === identity.userId },
          grantedBy: { id: row.grantedBy, name: row.grantorName, you: row.grantedBy === identity.userId },
          uses: row.uses,
          lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
          createdAt: row.createdAt.toISOString(),
          expiresAt: row.expiresAt.toISOString(),
        };
      });
    },

    /** Ends a grant now (its owner, its grantor, or a tenant admin); calls after it pause again. */
    async revoke(identity: Identity, grantId: string): Promise<{ revoked: true }> {
      const admin = hasRole(identity, "admin");
      if (await revokeGrant(db, { id: grantId, tenantId: identity.tenantId }, { userId: identity.userId, admin })) {
        return { revoked: true };
      }
      const row = await findGrant(db, grantId);
      if (!row || row.tenantId !== identity.tenantId) throw new NotFoundError("Grant");
      if (!admin && row.ownerId !== identity.userId && row.grantedBy !== identity.userId) {
        throw new ForbiddenError("Only the grant's owner, the person who gave it, or an admin can revoke it.");
      }
      // Already revoked: nothing more to do.
      return { revoked: true };
    },
  };
}

export type GrantService = ReturnType<typeof grantService>;
