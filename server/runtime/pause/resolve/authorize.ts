/** Rule 1, identity and policy: who may answer an interaction, and how. */
import type { InteractionRow } from "@/server/db/queries/interactions";
import { kindRules, type InteractionKind } from "@/server/domain";
import { ForbiddenError, HarborError } from "../../errors";
import { hasRole, type Identity } from "../../access";
import { assertOpen } from "../refusals";
import type { ResolutionInput, ResolveVia } from "../types";
import { checked, type Answering } from "./answering";

/** Gates decided under their resolver policy (owner, approvers or admins): approvals. */
const decidedByPolicy = (kind: InteractionKind) => kindRules(kind).answeredBy === "policy";

/** The requester cancelling their own open approval request: always theirs to take back. */
export function isWithdrawal(
  row: Pick<InteractionRow, "kind" | "ownerId">,
  identity: Identity,
  status: ResolutionInput["status"],
): boolean {
  return status === "cancelled" && decidedByPolicy(row.kind) && row.ownerId === identity.userId;
}

/** Whether the gate was escalated to a group `identity` belongs to. */
function escalatedTo(row: Pick<InteractionRow, "kind" | "escalatedAt" | "escalateTo">, identity: Identity): boolean {
  if (!decidedByPolicy(row.kind) || !row.escalatedAt || !row.escalateTo) return false;
  return hasRole(identity, row.escalateTo === "admins" ? "admin" : "approver");
}

/**
 * Rule 1, identity and policy: other tenants see nothing; within the tenant, the policy decides.
 * A tenant's admin steering from the console may also decide approval gates (nobody decides their
 * own `approvers` gate: four-eyes holds for admins too). The requester may withdraw (cancel) their
 * own approval request, whoever decides it: nothing gated runs, so the four-eyes rule is kept.
 */
export function authorize(row: InteractionRow, identity: Identity, via: ResolveVia, status: ResolutionInput["status"]): void {
  if (isWithdrawal(row, identity, status)) return;
  const operator = via === "console" && hasRole(identity, "admin") && decidedByPolicy(row.kind);
  if (operator && row.ownerId !== identity.userId) return;
  // Escalated: the group it went to may decide it too (never its requester).
  if (escalatedTo(row, identity) && row.ownerId !== identity.userId) return;
  if (row.policy === "owner" && row.ownerId !== identity.userId) {
    throw new ForbiddenError("Only the person who started this run can answer it.");
  }
  if (row.policy === "admins" && !hasRole(identity, "admin")) {
    throw new ForbiddenError("An operator paused this run: only an admin of the tenant can resume it.");
  }
  if (row.policy === "approvers") {
    if (row.ownerId === identity.userId) throw new ForbiddenError("You cannot approve your own request: another approver must decide.");
    if (!hasRole(identity, "approver")) throw new ForbiddenError("Only the tenant's approvers can decide this request.");
  }
}

/**
 * Decides whether the caller may answer these rows at all, this way: each by its policy, none of
 * them background work (it reports back by itself), a private form without a transcript (it would
 * be echoed in snapshots), and each still open.
 */
export function authorizeAnswers({ identity, entries, options }: Answering, ordered: readonly InteractionRow[]): void {
  checked(identity, () => {
    for (const [index, row] of ordered.entries()) authorize(row, identity, options.via, entries[index]!.status);
    const background = ordered.find((r) => kindRules(r.kind).answeredBy === "job");
    if (background) {
      throw new ForbiddenError("This work completes by itself: poll its response instead of answering it.");
    }
    const privateForm = ordered.find((r) => kindRules(r.kind).privateAnswer(r.detail ?? undefined));
    if (privateForm && options.withTranscript) {
      throw new HarborError(
        "PRIVATE_RESUME_HAS_TRANSCRIPT",
        "Answer a private form with resume[] alone: messages and state would be echoed in snapshots.",
        { interactionId: privateForm.id },
      );
    }
    for (const row of ordered) assertOpen(row);
  });
}
