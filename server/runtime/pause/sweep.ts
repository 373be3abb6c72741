/** Waits that end without an answer: their time ran out, their process is gone, or their run is cancelled. */
import { actOnDueDeadlines } from "@/server/db/queries/interactions";
import type { CancelledBy } from "@/server/domain";
import { closeWhere } from "./closing";
import { notify, type CoordinatorContext } from "./context";
import { LOST_MESSAGE } from "./refusals";
import { letGo } from "./types";

/** Durable waits are swept every this many sweeps (a minute at the default 5 s interval). */
const DURABLE_SWEEP_EVERY = 12;

/**
 * Ends waits whose time ran out while nobody answered (their runs end `expired`): this process's
 * own, and — less often, since any process may hold them — durable ones, also those an earlier
 * process left behind.
 */
export async function sweepExpired(ctx: CoordinatorContext): Promise<void> {
  const startedAt = Date.now();
  await actOnDeadlines(ctx);
  const durable = ctx.sweeps++ % DURABLE_SWEEP_EVERY === 0;
  if (ctx.parked.size === 0 && !durable) return;
  const expiredOf = { expiredOf: ctx.deps.instanceId, ...(durable ? { durableKinds: ctx.durableKinds } : {}) };
  await closeWhere(
    ctx,
    "expired",
    { ...expiredOf, onExpiry: "reject" },
    { failure: { code: "EXPIRED", message: "The request expired before it was answered." } },
  );
  await closeWhere(ctx, "expired", { ...expiredOf, onExpiry: "cancel" }, { cancelledBy: "system" });
  forgetOverdue(ctx, startedAt);
}

/**
 * Parked runs whose time ran out before this sweep began are closed by now: here, by the sweep's
 * statements, or by another instance (a client that abandoned an expired interrupt there). Either
 * way nothing can answer them any more, so this process lets go of what it still held.
 */
function forgetOverdue(ctx: CoordinatorContext, before: number): void {
  for (const [runId, run] of ctx.parked) {
    if (run.expiresAt > before) continue;
    ctx.gates.forget(run.waitingOn);
    letGo(run);
    ctx.parked.delete(runId);
  }
}

/**
 * Reminders and escalations that fell due, of any instance's gates (they are rows): logged,
 * audited and told to webhooks by the statement; here, told to live readers and inboxes.
 */
async function actOnDeadlines(ctx: CoordinatorContext): Promise<void> {
  const { deps } = ctx;
  const acted = await actOnDueDeadlines(deps.db);
  const at = Date.now();
  for (const a of acted) {
    if (a.logged) deps.bus.publish({ runId: a.runId, seq: a.logged.seq, at, event: a.logged.event });
    deps.log.info({ interactionId: a.id, runId: a.runId, action: a.action, escalateTo: a.escalateTo }, "gate deadline acted");
  }
  notify(
    ctx,
    acted.map((a) => ({
      tenantId: a.tenantId,
      interactionId: a.id,
      runId: a.runId,
      ownerId: a.ownerId,
      policy: a.policy,
      status: "pending" as const,
      ...(a.escalateTo && a.action === "escalate" ? { escalatedTo: a.escalateTo } : {}),
    })),
  );
}

/**
 * Cancels a parked run: its open interactions close as `cancelled`, the run ends `cancelled`
 * with `run.cancelled { by }` and a note in its thread.
 */
export async function cancel(ctx: CoordinatorContext, runId: string, by: CancelledBy): Promise<boolean> {
  const closed = await closeWhere(ctx, "cancelled", { runId }, { cancelledBy: by });
  return closed.length > 0;
}

/**
 * Dead instances' process-held waits (those not made durable) can no longer be answered: they
 * close as `lost`, their runs with them (`INTERACTION_LOST`), audited. Durable ones stay open
 * for whichever instance is answered.
 */
export async function closeWaitsOf(ctx: CoordinatorContext, deadInstances: readonly string[]): Promise<number> {
  if (deadInstances.length === 0 || ctx.lostWithProcess.length === 0) return 0;
  const closed = await closeWhere(
    ctx,
    "lost",
    { heldBy: deadInstances, kinds: ctx.lostWithProcess },
    { failure: { code: "INTERACTION_LOST", message: LOST_MESSAGE } },
  );
  return closed.length;
}
