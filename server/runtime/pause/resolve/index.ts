/**
 * `resolve`: every answer, from AG-UI, tRPC, the console, an OAuth callback or a decision link,
 * goes through these steps, in this order, and nowhere else. All or none: a step that refuses
 * leaves nothing changed (an overdue or lost wait is closed, as it would be anyway).
 */
import { telemetry } from "@/server/telemetry";
import type { Identity } from "../../access";
import type { CoordinatorContext } from "../context";
import type { ReadyRun, ResolutionInput, ResolveOptions } from "../types";
import { answering } from "./answering";
import { authorizeAnswers } from "./authorize";
import { handBack, claimGates } from "./claim";
import { checkExpiry } from "./expiry";
import { findAnswered, loadGates } from "./load";
import { readAnswers } from "./read";
import { verifyResumeTokens } from "./resume-tokens";
import { routeToHolder } from "./route";
import { voteOnQuorum } from "./vote";

export { answering, checked, type Answering } from "./answering";
export { authorize, authorizeAnswers, isWithdrawal } from "./authorize";
export { claimGates, handBack } from "./claim";
export { checkExpiry, overdueOf } from "./expiry";
export { findAnswered, loadGates } from "./load";
export { readAnswers } from "./read";
export { verifyResumeTokens } from "./resume-tokens";
export { heldByItsInstance, routeToHolder, type HolderOf } from "./route";
export { castBallot, isBallot, voteOf, voteOnQuorum } from "./vote";

/**
 * Resolves interactions for `identity`, all or none. With `threadId` (an AG-UI resume) the entries
 * must answer every open interaction of that thread. Returns the runs whose every interaction is
 * now answered, ready to be driven on; the caller drives them.
 */
export async function resolve(
  ctx: CoordinatorContext,
  identity: Identity,
  entries: readonly ResolutionInput[],
  options: ResolveOptions,
): Promise<ReadyRun[]> {
  const arrived = performance.now();
  const request = answering(identity, entries, options);
  const loaded = await loadGates(ctx, request);
  const ordered = findAnswered(request, loaded);
  authorizeAnswers(request, ordered);
  await checkExpiry(ctx, identity, ordered);
  const holderOf = await routeToHolder(ctx, request, ordered);
  const claims = readAnswers(ctx, request, ordered, loaded);
  await verifyResumeTokens(ctx, request, ordered);
  if (!(await voteOnQuorum(ctx, request, ordered, claims))) return [];
  const won = await claimGates(ctx, request, ordered, claims);
  const ready = handBack(ctx, request, ordered, claims, holderOf, won);
  // From the decision's arrival to its runs handed back to go on: what the system adds to a person's wait.
  const ms = performance.now() - arrived;
  for (const row of ordered) telemetry.decisionApplied(row.kind, ms);
  return ready;
}
