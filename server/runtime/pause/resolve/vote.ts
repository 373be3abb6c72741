/**
 * A quorum: an approval is a vote until enough approvers agree; the vote that completes it claims
 * the gate like any answer, and one rejection decides at once. A requester's withdrawal is no
 * vote: it closes the gate at once.
 */
import { castVote, findInteractions, type Claim, type InteractionRow } from "@/server/db/queries/interactions";
import type { Vote } from "@/server/domain";
import { HarborError, InvalidInputError } from "../../errors";
import { verifiedOnly, type Identity, type VerifiedIdentity } from "../../access";
import type { AnswerClaim } from "../answers";
import { notify, type CoordinatorContext } from "../context";
import { assertOpen } from "../refusals";
import type { Answering } from "./answering";
import { isWithdrawal } from "./authorize";

/** Whether any answer is a vote on a gate that needs several approvers. */
export function isBallot({ identity, entries }: Pick<Answering, "identity" | "entries">, ordered: readonly InteractionRow[]): boolean {
  return ordered.some((row, index) => row.quorum > 1 && !isWithdrawal(row, identity, entries[index]!.status));
}

/** The vote an answer casts: an approval or not, with its reason (a cancellation gives none). */
export function voteOf(identity: Identity, claim: Claim, at = new Date()): Vote {
  const reason = typeof claim.decision.reason === "string" ? claim.decision.reason : undefined;
  return {
    by: identity.userId,
    approved: claim.status === "resolved",
    ...(reason && claim.status !== "cancelled" ? { reason } : {}),
    at: at.toISOString(),
  };
}

/**
 * One approver's vote on a quorum gate. An approval that leaves the quorum short is recorded and
 * the gate stays open (undefined); otherwise the votes the decision keeps (a rejection's with it).
 */
export async function castBallot(
  ctx: CoordinatorContext,
  identity: VerifiedIdentity,
  row: InteractionRow,
  claim: Claim,
): Promise<Vote[] | undefined> {
  const cast = voteOf(identity, claim);
  if (claim.status !== "resolved") return [...row.votes, cast];
  const tally = await castVote(ctx.deps.db, { id: row.id, tenantId: identity.tenantId }, cast);
  if (!tally) {
    const [now] = await findInteractions(ctx.deps.db, [row.id]);
    if (now) assertOpen(now);
    throw new HarborError("ALREADY_VOTED", "You already approved this request; it waits for the other approvers.", {
      interactionId: row.id,
    });
  }
  if (tally.approvals >= tally.quorum) return tally.votes;
  notify(ctx, [
    { tenantId: row.tenantId, interactionId: row.id, runId: row.runId, ownerId: row.ownerId, policy: row.policy, status: "pending" },
  ]);
  return undefined;
}

/**
 * Decides whether the answer goes on to claim its gate: yes when it is no vote, or the vote that
 * decides (the votes then go with the decision); no when the gate still waits for more approvals.
 */
export async function voteOnQuorum(
  ctx: CoordinatorContext,
  answering: Answering,
  ordered: readonly InteractionRow[],
  claims: AnswerClaim[],
): Promise<boolean> {
  if (!isBallot(answering, ordered)) return true;
  const identity = verifiedOnly(answering.identity);
  if (claims.length > 1) throw new InvalidInputError("resume", "a gate that needs several approvers is answered on its own");
  const tally = await castBallot(ctx, identity, ordered[0]!, claims[0]!);
  if (!tally) return false;
  claims[0]!.decision = { ...claims[0]!.decision, votes: tally };
  return true;
}
