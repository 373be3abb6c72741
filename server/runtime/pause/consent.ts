/** An OAuth consent as its callback finds it: open, this identity's, and held while it is completed. */
import { findInteractions, holdConsent, type InteractionRow } from "@/server/db/queries/interactions";
import { HarborError, NotFoundError } from "../errors";
import type { VerifiedIdentity } from "../access";
import { closeAndRefuse } from "./closing";
import type { CoordinatorContext } from "./context";
import { assertOpen } from "./refusals";
import { authorize } from "./resolve";

/**
 * An open consent of this identity (for `provider`, when given); refuses exactly as `resolve`
 * would (an expired one ends its run).
 */
export async function openConsent(
  ctx: CoordinatorContext,
  identity: VerifiedIdentity,
  interactionId: string,
  provider?: string,
): Promise<InteractionRow> {
  const [row] = await findInteractions(ctx.deps.db, [interactionId]);
  if (!row || row.tenantId !== identity.tenantId || row.kind !== "oauth" || (provider !== undefined && row.detail?.provider !== provider)) {
    throw new NotFoundError("Consent request");
  }
  authorize(row, identity, "oauth_callback", "resolved");
  assertOpen(row);
  if (row.expiresAt.getTime() <= Date.now()) await closeAndRefuse(ctx, "expired", [row]);
  return row;
}

/**
 * The OAuth callback's hold, before it exchanges anything: the interaction is this identity's
 * open consent for `provider`, and no other callback is completing it. `release` lets another
 * try when the exchange failed; resolving it (`resolve` via `oauth_callback`) ends the hold.
 */
export async function holdOpenConsent(
  ctx: CoordinatorContext,
  identity: VerifiedIdentity,
  interactionId: string,
  provider: string,
): Promise<{ threadId: string }> {
  const row = await openConsent(ctx, identity, interactionId, provider);
  if (!(await holdConsent(ctx.deps.db, row.id))) {
    const [now] = await findInteractions(ctx.deps.db, [row.id]);
    if (now) assertOpen(now);
    throw new HarborError("ALREADY_RESOLVED", "This sign-in is already being completed; the action is not repeated.", {
      interactionId: row.id,
    });
  }
  return { threadId: row.threadId };
}
