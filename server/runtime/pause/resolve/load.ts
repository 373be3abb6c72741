/** The first steps of `resolve`: the interactions answered, as this process holds them or as stored. */
import { interactionsToResolve, type InteractionRow } from "@/server/db/queries/interactions";
import { HarborError, NotFoundError } from "../../errors";
import { verifiedOnly } from "../../access";
import { openWaitsOf, type CoordinatorContext } from "../context";
import { checked, type Answering } from "./answering";

/**
 * Decides where the rows come from: this process's copies of the gates it parked when it can vouch
 * for every one (nothing read), else the database. A remembered identity answers only gates parked
 * here, with nothing read or written before the claim that checks its credential.
 * With `threadId` the thread's other open waits come along (a resume must answer them all).
 */
export async function loadGates(ctx: CoordinatorContext, { identity, ids, options }: Answering): Promise<InteractionRow[]> {
  const vouched = ctx.gates.vouchFor(ids, options.threadId ? (runId) => openWaitsOf(ctx, runId) : undefined);
  if (vouched) return vouched;
  verifiedOnly(identity);
  return interactionsToResolve(ctx.deps.db, ids, options.threadId);
}

/**
 * Decides which row each entry answers: one of the caller's tenant (and, on an AG-UI resume, of its
 * thread); any other is unknown to the caller, whether it exists or not.
 */
export function findAnswered({ identity, entries, ids, options }: Answering, loaded: readonly InteractionRow[]): InteractionRow[] {
  const unknown = (id: string) =>
    options.threadId
      ? new HarborError("UNKNOWN_INTERRUPT", `This thread has no interrupt "${id}".`, { interruptId: id })
      : new NotFoundError("Interaction");
  const rows = new Map(loaded.filter((r) => ids.includes(r.id)).map((r) => [r.id, r]));
  return checked(identity, () =>
    entries.map((entry) => {
      const row = rows.get(entry.interactionId);
      if (!row || row.tenantId !== identity.tenantId) throw unknown(entry.interactionId);
      if (options.threadId && row.threadId !== options.threadId) throw unknown(entry.interactionId);
      return row;
    }),
  );
}
