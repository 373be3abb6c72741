/** Where an answer is decided: the process that holds the wait, or this one taking it over. */
import { pendingOfRun, type InteractionRow } from "@/server/db/queries/interactions";
import { verifiedOnly } from "../../access";
import { closeAndRefuse } from "../closing";
import type { CoordinatorContext } from "../context";
import { isOptionallyDurable } from "../durability";
import { HeldElsewhere, type ParkedRun, type ResolveOptions } from "../types";
import type { Answering } from "./answering";

/** Finds the parked run that holds a run's waits, here or taken over by this answer. */
export type HolderOf = (runId: string) => ParkedRun | undefined;

/**
 * Whether a wait is answered by the instance that parked it: a process-held wait always is (its
 * live state is there); one made durable is until its holder stops or is gone.
 */
export function heldByItsInstance(ctx: CoordinatorContext, row: InteractionRow, options: Pick<ResolveOptions, "takeOverFrom">): boolean {
  return !ctx.durableKinds.includes(row.kind) || (isOptionallyDurable(row.kind) && !options.takeOverFrom?.has(row.instanceId));
}

/** The run a durable wait belongs to, as this process takes it over: it goes on once every open wait of the run is answered. */
async function takeOver(ctx: CoordinatorContext, row: InteractionRow): Promise<ParkedRun> {
  const open = await pendingOfRun(ctx.deps.db, row.runId);
  return {
    journal: await ctx.deps.journalFor(row.runId),
    waitingOn: open.some((o) => o.id === row.id) ? open.map((o) => o.id) : [row.id],
    expiresAt: row.expiresAt.getTime(),
  };
}

/**
 * Decides who holds each answered wait: another instance (HeldElsewhere: the caller forwards the
 * answer there), this process (parked here, or a durable wait taken over from its checkpoint), or
 * nobody any more (lost with its process: closed, and the answer refused).
 */
export async function routeToHolder(
  ctx: CoordinatorContext,
  { identity, options }: Answering,
  ordered: readonly InteractionRow[],
): Promise<HolderOf> {
  const elsewhere = ordered.find((r) => r.instanceId !== ctx.deps.instanceId && heldByItsInstance(ctx, r, options));
  if (elsewhere) throw new HeldElsewhere(elsewhere.instanceId, elsewhere.runId);
  // A durable wait: whichever process answers it takes the run over from its checkpoint — held
  // aside until the claim is won, so a refused answer leaves nothing behind.
  const takeovers = new Map<string, ParkedRun>();
  for (const row of ordered) {
    if (!ctx.durableKinds.includes(row.kind) || ctx.parked.get(row.runId)?.waitingOn.includes(row.id)) continue;
    if (takeovers.has(row.runId)) continue;
    verifiedOnly(identity);
    takeovers.set(row.runId, await takeOver(ctx, row));
  }
  const holderOf: HolderOf = (runId) => ctx.parked.get(runId) ?? takeovers.get(runId);
  const orphaned = ordered.filter((r) => !holderOf(r.runId));
  if (orphaned.length > 0) {
    verifiedOnly(identity);
    await closeAndRefuse(ctx, "lost", orphaned);
  }
  return holderOf;
}
