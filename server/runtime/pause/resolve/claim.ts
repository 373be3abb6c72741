/** Rule 3, once: the claim decides, and the runs it completes are handed back to be driven on. */
import { findInteractions, type ClaimResult, type InteractionRow } from "@/server/db/queries/interactions";
import { findTraceParent } from "@/server/db/queries/traces";
import { kindRules } from "@/server/domain";
import { pauseSpan, telemetry, tracingEnabled } from "@/server/telemetry";
import { HarborError } from "../../errors";
import { credentialToCheck, hasRole, verifiedOnly, type Identity } from "../../access";
import type { Resolution } from "../../agent";
import type { AnswerClaim } from "../answers";
import { notify, type CoordinatorContext } from "../context";
import { assertOpen } from "../refusals";
import type { ReadyRun } from "../types";
import type { Answering } from "./answering";
import type { HolderOf } from "./route";

/**
 * Decides who answered: the compare-and-set claims every gate or none; whoever loses the race
 * changes nothing and is told why. A remembered identity's credential is checked by the same
 * statement.
 */
export async function claimGates(
  ctx: CoordinatorContext,
  { identity, ids, options }: Answering,
  ordered: readonly InteractionRow[],
  claims: readonly AnswerClaim[],
): Promise<ClaimResult> {
  const won = await ctx.claim({
    request: {
      claims: claims.map(({ id, status, decision }) => ({ id, status, decision })),
      actor: { tenantId: identity.tenantId, userId: identity.userId, via: options.via },
      grants: claims.flatMap((c) => (c.grant ? [c.grant] : [])),
      unverified: credentialToCheck(identity),
    },
    keys: [...ids.map((id) => `gate:${id}`), ...ordered.map((row) => `run:${row.runId}`)],
  });
  ctx.gates.forget(ids);
  if (won.ids.length !== claims.length) {
    // Lost the race, or the credential failed the claim's check: either way, looked up first.
    verifiedOnly(identity);
    const now = await findInteractions(ctx.deps.db, ids);
    for (const row of now) assertOpen(row);
    throw new HarborError("EXPIRED", "This request expired before it was answered.");
  }
  await recordDecisions(ctx, identity, ordered, claims);
  notify(
    ctx,
    claims.map((c, i) => ({
      tenantId: identity.tenantId,
      interactionId: c.id,
      runId: ordered[i]!.runId,
      ownerId: ordered[i]!.ownerId,
      policy: ordered[i]!.policy,
      status: c.status,
    })),
  );
  return won;
}

/** Who decided, by role, as metrics and traces say it: the run's own user, or the decider's highest role. */
function deciderRole(identity: Identity, ownerId: string): string {
  if (identity.userId === ownerId) return "owner";
  return (["admin", "approver"] as const).find((role) => hasRole(identity, role)) ?? "member";
}

/** Each decided pause's wait into the metrics and, when tracing, a span from park to decision in its run's trace. */
async function recordDecisions(
  ctx: CoordinatorContext,
  identity: Identity,
  ordered: readonly InteractionRow[],
  claims: readonly AnswerClaim[],
): Promise<void> {
  const now = Date.now();
  for (const [i, claim] of claims.entries()) {
    const row = ordered[i]!;
    // The words of `pause.resumed`: an approval is approved or rejected, any other wait resolved.
    const decision = claim.status === "resolved" && row.kind === "approval" ? "approved" : claim.status;
    telemetry.pauseDecided(row.kind, decision, now - row.createdAt.getTime());
    if (!tracingEnabled()) continue;
    pauseSpan({
      runId: row.runId,
      pauseId: row.id,
      kind: row.kind,
      reason: kindRules(row.kind).pauseReason,
      decision,
      decidedBy: deciderRole(identity, row.ownerId),
      parkedAt: row.createdAt,
      parent: await findTraceParent(ctx.deps.db, row.runId),
    });
  }
}

/**
 * Gives each answer to the run that waits on it; a run whose every wait is now answered is let go
 * of here and returned, with the continuation the claim brought, to be driven on.
 */
export function handBack(
  ctx: CoordinatorContext,
  { identity }: Answering,
  ordered: readonly InteractionRow[],
  claims: readonly AnswerClaim[],
  holderOf: HolderOf,
  won: ClaimResult,
): ReadyRun[] {
  const ready: ReadyRun[] = [];
  for (const [index, claim] of claims.entries()) {
    const runId = ordered[index]!.runId;
    const run = holderOf(runId);
    if (!run) continue;
    ctx.parked.set(runId, run);
    run.resolutions ??= new Map();
    run.resolutions.set(claim.id, {
      interactionId: claim.id,
      kind: ordered[index]!.kind,
      status: claim.status,
      payload: claim.payload,
      actorId: identity.userId,
    } satisfies Resolution);
    if (run.waitingOn.every((id) => run.resolutions?.has(id))) {
      ctx.gates.forget(run.waitingOn);
      ctx.parked.delete(runId);
      ready.push({ runId, parked: run, continuation: won.continuations.get(runId) });
    }
  }
  return ready;
}
