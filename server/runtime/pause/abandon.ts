/** Letting a client abandon interrupts nobody can answer any more. */
import { findInteractions, interactionsToResolve, type InteractionRow } from "@/server/db/queries/interactions";
import { kindRules } from "@/server/domain";
import { verifiedOnly, type Identity } from "../access";
import { closeUnanswerable } from "./closing";
import type { CoordinatorContext } from "./context";
import { alreadyResolved } from "./refusals";
import { authorize } from "./resolve";
import type { ResolutionInput } from "./types";

/** Only bare cancellations, each interrupt once; anything else is `resolve`'s to judge (and refuse). */
function onlyBareCancellations(entries: readonly ResolutionInput[]): boolean {
  const bare = (e: ResolutionInput) => e.status === "cancelled" && e.payload === undefined && e.resumeToken === undefined;
  const ids = entries.map((e) => e.interactionId);
  return entries.length > 0 && entries.every(bare) && new Set(ids).size === ids.length;
}

/**
 * An AG-UI resume that only abandons (`cancelled`) interrupts nobody can answer any more: expired,
 * or lost with their process. A 1.x client holds an interrupt pending until a `RUN_FINISHED`
 * closes it, so refusing with EXPIRED would lock the thread for it: instead what is still open
 * (an overdue gate the sweep has not reached) closes as expiring does, its run ending by the
 * gate's safe default, and the caller finishes the transport run. Undefined for any other resume
 * (answers, live interrupts, another thread's or tenant's ids, or some missing): `resolve` rules.
 */
export async function abandonUnanswerable(
  ctx: CoordinatorContext,
  identity: Identity,
  entries: readonly ResolutionInput[],
  threadId: string,
): Promise<{ runId: string } | undefined> {
  if (!onlyBareCancellations(entries)) return undefined;
  const ids = entries.map((e) => e.interactionId);
  // Gates this process parked and that are still live are answerable: nothing to read.
  if (ctx.gates.vouchFor(ids)) return undefined;
  // Nothing is read for a remembered identity before its credential is checked (Identity.unverified).
  verifiedOnly(identity);
  const loaded = await interactionsToResolve(ctx.deps.db, ids, threadId);
  const rows = ids.map((id) => loaded.find((r) => r.id === id));
  const now = Date.now();
  const overdue = (r: InteractionRow) => r.status === "pending" && r.expiresAt.getTime() <= now;
  const unanswerable = (r: InteractionRow | undefined): r is InteractionRow =>
    r !== undefined &&
    r.tenantId === identity.tenantId &&
    r.threadId === threadId &&
    // Background work is nobody's to answer, abandoned or not: `resolve` says so.
    kindRules(r.kind).holdsThread &&
    (r.status === "expired" || r.status === "lost" || overdue(r));
  if (!rows.every(unanswerable)) return undefined;
  // Every open interrupt of the thread must be part of it, as for any resume.
  if (loaded.some((r) => r.status === "pending" && kindRules(r.kind).holdsThread && !ids.includes(r.id))) return undefined;
  for (const row of rows) authorize(row, identity, "agui", "cancelled");
  const open = rows.filter(overdue);
  const closed = open.length > 0 ? await closeUnanswerable(ctx, "expired", open) : new Set<string>();
  // Not closed here: the sweep (or another abandonment) closed it meanwhile, or someone answered it.
  const raced = open.filter((r) => !closed.has(r.id)).map((r) => r.id);
  if (raced.length > 0) {
    const answered = (await findInteractions(ctx.deps.db, raced)).find((r) => r.status !== "expired" && r.status !== "lost");
    if (answered) throw alreadyResolved(answered.id, answered.status);
  }
  return { runId: rows[0]!.runId };
}
