/** Resume tokens presented with answers (optional proof of the pause's scope). */
import type { InteractionRow } from "@/server/db/queries/interactions";
import { isRemembered, verifiedOnly } from "../../access";
import type { CoordinatorContext } from "../context";
import { verifyResumeToken } from "../resume-token";
import type { Answering } from "./answering";

/**
 * Decides whether each presented token fits the caller and the interaction it answers (same
 * tenant and thread; the same user when only the owner may answer). Entries without one pass.
 */
export async function verifyResumeTokens(
  ctx: CoordinatorContext,
  { identity, entries }: Answering,
  ordered: readonly InteractionRow[],
): Promise<void> {
  // A refused token is told to a remembered identity only once it is looked up.
  if (isRemembered(identity) && entries.some((e) => e.resumeToken)) verifiedOnly(identity);
  for (const [index, entry] of entries.entries()) {
    const row = ordered[index]!;
    if (!entry.resumeToken) continue;
    await verifyResumeToken(ctx.deps.resumeTokenKey, entry.resumeToken, {
      interactionId: row.id,
      tenantId: identity.tenantId,
      threadId: row.threadId,
      userId: row.policy === "owner" ? identity.userId : undefined,
    });
  }
}
