/** Rule 2, expiry. */
import type { InteractionRow } from "@/server/db/queries/interactions";
import { verifiedOnly, type Identity } from "../../access";
import { closeAndRefuse } from "../closing";
import type { CoordinatorContext } from "../context";

/** The rows whose time ran out by `now` (the sweep may not have reached them yet). */
export function overdueOf(rows: readonly InteractionRow[], now = Date.now()): InteractionRow[] {
  return rows.filter((r) => r.expiresAt.getTime() <= now);
}

/**
 * Decides that an overdue gate is not answered: it closes now, as expiring does (its run ends by
 * the gate's safe default), and the answer is refused.
 */
export async function checkExpiry(ctx: CoordinatorContext, identity: Identity, ordered: readonly InteractionRow[]): Promise<void> {
  const overdue = overdueOf(ordered);
  if (overdue.length === 0) return;
  verifiedOnly(identity);
  await closeAndRefuse(ctx, "expired", overdue);
}
