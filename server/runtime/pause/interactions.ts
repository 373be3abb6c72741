/**
 * Interactions as people and programs see them: the inbox listing, one interaction, and
 * resolving through tRPC. Resolution itself is the coordinator's (`resolve`): the same function,
 * and so the same rules, as an AG-UI resume.
 */
import type { Database } from "@/server/db";
import { listInteractions, type InteractionListRow } from "@/server/db/queries/interactions";
import type { InteractionDetail, InteractionKind, InteractionStatus } from "@/server/domain";
import { APPROVAL_RESPONSE_SCHEMA, type InteractionChange, type ResolutionInput } from "./coordinator";
import { NotFoundError } from "../errors";
import type { GrantRequest } from "../policies";
import { hasRole, type Identity } from "../access";
import { LiveQueue } from "../log";
import type { SubscriptionSlots } from "../log";
import { storedThreadIds } from "../access";

export interface InteractionQuery {
  status?: InteractionStatus;
  kind?: InteractionKind;
  tool?: string;
  requester?: string;
  threadId?: string;
}

/** A grant offer as clients see it: what it allows, not the tool version it binds (kept on the server). */
function withoutGrantBinding(detail: InteractionDetail): InteractionDetail {
  if (!detail.grant) return detail;
  const { bounds, summary, caps } = detail.grant;
  return { ...detail, grant: { bounds, summary, ...(caps ? { caps } : {}) } };
}

/** What clients get: no internal columns; the decision with its actor. */
export function interactionView(row: InteractionListRow) {
  return {
    interactionId: row.id,
    runId: row.runId,
    threadId: row.threadClientId ?? row.threadId,
    kind: row.kind,
    pauseReason: row.pauseReason,
    policy: row.policy,
    status: row.status,
    message: row.message,
    tool: row.toolName ? { name: row.toolName, args: row.toolArgs ?? {} } : null,
    toolCallId: row.toolCallId,
    detail: row.detail ? withoutGrantBinding(row.detail) : null,
    requester: { id: row.ownerId, name: row.requesterName, email: row.requesterEmail },
    decision: row.decision,
    resolvedBy: row.resolvedBy ? { id: row.resolvedBy, name: row.resolverName } : null,
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    responseSchema: row.responseSchema ?? (row.kind === "approval" ? APPROVAL_RESPONSE_SCHEMA : null),
    /** Approvals needed (1: any one approver decides). */
    quorum: row.quorum,
    /** The votes cast so far on a quorum gate, with the voter's name. */
    votes: (row.decision?.votes ?? row.votes).map((v) => ({ ...v, name: row.voters?.find((u) => u.id === v.by)?.name ?? null })),
    /** Who may still vote on an open quorum gate: the tenant's approvers but its requester and those who voted. */
    mayVote: row.status === "pending" && row.voters ? row.voters.filter((u) => !row.votes.some((v) => v.by === u.id)) : [],
    /** What its deadline does and did: reminder, escalation, and the safe default on expiry. */
    deadline: {
      remindAt: row.remindAt?.toISOString() ?? null,
      remindedAt: row.remindedAt?.toISOString() ?? null,
      escalateAt: row.escalateAt?.toISOString() ?? null,
      escalateTo: row.escalateTo,
      escalatedAt: row.escalatedAt?.toISOString() ?? null,
      onExpiry: row.onExpiry,
    },
  };
}

export type InteractionView = ReturnType<typeof interactionView>;

export function interactionService(
  db: Database,
  resolveInteractions: (identity: Identity, entries: readonly ResolutionInput[], via: "trpc") => Promise<{ continued: string[] }>,
  onChange: (listener: (change: InteractionChange) => void) => () => void,
  slots: SubscriptionSlots,
  /** Keys the tenant's own thread ids (see threads.ts), so a thread filter finds either. */
  serverSecret: string,
) {
  const visibleTo = (identity: Identity) => ({
    userId: identity.userId,
    approver: hasRole(identity, "approver"),
    admin: hasRole(identity, "admin"),
  });

  return {
    /** The caller's own interactions, and for approvers every interaction routed to the tenant's approvers. */
    list: async (identity: Identity, { threadId, ...query }: InteractionQuery = {}) =>
      (
        await listInteractions(db, {
          tenantId: identity.tenantId,
          ...query,
          ...(threadId ? { threadIds: storedThreadIds(serverSecret, identity.tenantId, threadId) } : {}),
          visibleTo: visibleTo(identity),
        })
      ).map(interactionView),

    get: async (identity: Identity, interactionId: string) => {
      const [row] = await listInteractions(db, {
        tenantId: identity.tenantId,
        id: interactionId,
        visibleTo: visibleTo(identity),
        limit: 1,
      });
      if (!row) throw new NotFoundError("Interaction");
      return interactionView(row);
    },

    /** One answer, exactly like a `resume[]` entry; the run continues in the background when complete. */
    resolve: (identity: Identity, entry: ResolutionInput) => resolveInteractions(identity, [entry], "trpc"),

    /** Approve or reject: an approval's only two answers, with an optional reason. */
    decide: (identity: Identity, interactionId: string, approved: boolean, reason?: string, grant?: GrantRequest) =>
      resolveInteractions(
        identity,
        [{ interactionId, status: "resolved", payload: { approved, ...(reason ? { reason } : {}), ...(grant ? { grant } : {}) } }],
        "trpc",
      ),

    /**
     * Live changes of what the caller may see (their own interactions; for approvers, those routed
     * to the tenant's approvers), until `signal` aborts.
     */
    watch(identity: Identity, signal?: AbortSignal): AsyncGenerator<Pick<InteractionChange, "interactionId" | "runId" | "status">> {
      // Taken at the call, so a refusal is an error of the call, not of the stream.
      const giveBack = slots.take(identity.userId, signal);
      const approver = hasRole(identity, "approver");
      const admin = hasRole(identity, "admin");
      const changes = new LiveQueue<InteractionChange>();
      const unsubscribe = onChange((change) => {
        if (change.tenantId !== identity.tenantId) return;
        const routed = change.policy === "approvers" || change.escalatedTo === "approvers" || (change.escalatedTo === "admins" && admin);
        if (change.ownerId !== identity.userId && !(approver && routed)) return;
        changes.push(change);
      });
      // A feed never read still lets go when its request ends.
      signal?.addEventListener("abort", unsubscribe, { once: true });
      return (async function* () {
        try {
          for await (const change of changes.read(signal)) {
            yield { interactionId: change.interactionId, runId: change.runId, status: change.status };
          }
        } finally {
          unsubscribe();
          giveBack();
        }
      })();
    },
  };
}
