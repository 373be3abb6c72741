/** Closing waits nobody answered — cancelled, expired, lost — together with their runs. */
import { closeInteractions, type CloseTarget, type InteractionRow, type RunEnding } from "@/server/db/queries/interactions";
import { HarborError } from "../errors";
import { notify, type CoordinatorContext } from "./context";
import { alreadyResolved, failureOf } from "./refusals";
import { letGo } from "./types";

/**
 * Ends pending interactions that can no longer be answered, with their runs; tells live readers
 * (the run's final event) and inboxes.
 */
export async function closeWhere(ctx: CoordinatorContext, to: "expired" | "lost" | "cancelled", target: CloseTarget, ending: RunEnding) {
  const { deps, parked, gates } = ctx;
  const closed = await closeInteractions(deps.db, to, target, ending);
  const at = Date.now();
  for (const c of closed) {
    gates.forget(parked.get(c.runId)?.waitingOn ?? [c.id]);
    letGo(parked.get(c.runId));
    parked.delete(c.runId);
    for (const { seq, event } of c.finalEvents) deps.bus.publish({ runId: c.runId, seq, at, event });
  }
  notify(
    ctx,
    closed.map((c) => ({ ...c, interactionId: c.id, status: to })),
  );
  if (closed.length > 0) deps.onWaitsClosed?.(closed);
  return closed;
}

/** Closes what is still pending among `rows`, as `to`; returns the ids it closed. */
export async function closeUnanswerable(
  ctx: CoordinatorContext,
  to: "expired" | "lost",
  rows: readonly InteractionRow[],
): Promise<Set<string>> {
  const failure = failureOf(to);
  // An expired gate's safe default decides how its run ends: failed `expired`, or cancelled.
  const cancelling = to === "expired" ? rows.filter((r) => r.onExpiry === "cancel") : [];
  const failing = rows.filter((r) => !cancelling.includes(r));
  const closed = [
    ...(failing.length > 0 ? await closeWhere(ctx, to, { ids: failing.map((r) => r.id) }, { failure }) : []),
    ...(cancelling.length > 0 ? await closeWhere(ctx, to, { ids: cancelling.map((r) => r.id) }, { cancelledBy: "system" }) : []),
  ];
  return new Set(closed.map((c) => c.id));
}

/** Closes what is still pending among `rows`; throws why it cannot be answered. */
export async function closeAndRefuse(ctx: CoordinatorContext, to: "expired" | "lost", rows: readonly InteractionRow[]): Promise<never> {
  const closed = await closeUnanswerable(ctx, to, rows);
  // Closing changes only pending rows: one that was not closed was answered by someone else meanwhile.
  const answered = rows.find((r) => !closed.has(r.id));
  if (answered) throw alreadyResolved(answered.id);
  const failure = failureOf(to);
  throw new HarborError(failure.code, failure.message, { interactionId: rows[0]!.id });
}
