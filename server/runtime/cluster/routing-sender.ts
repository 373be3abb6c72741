/**
 * The sender's side of routing: a request stored sealed for its target, and its answer awaited —
 * rung by `NOTIFY`, but always read from the row, so a lost notification only delays it.
 */
import { randomUUID } from "node:crypto";
import { dropUntakenRoutedRequest, storeRoutedRequest, takeRoutedReply } from "@/server/db/queries/routing";
import { HarborError } from "../errors";
import { NotForwarded, Reply, type RoutedRequest } from "./routed-request";
import type { RouterContext } from "./router-context";

/**
 * Forwards `request` to `target` and waits for its answer; the owner's refusal is thrown as it
 * was. Throws `NotForwarded` when the target gives it back, or leaves without taking it.
 */
export async function forward(router: RouterContext, target: string, request: RoutedRequest): Promise<{ runIds: string[] }> {
  const { deps, waiting, timeoutMs, checkMs } = router;
  const id = randomUUID();
  const nextRing = () => new Promise<"rung">((resolve) => waiting.set(id, () => resolve("rung")));
  let rung = nextRing();
  try {
    await storeRoutedRequest(deps.db, {
      id,
      targetInstance: target,
      fromInstance: deps.instanceId,
      sealed: deps.sealer.seal(JSON.stringify(request), id),
    });
    const pause = () => new Promise<"quiet">((resolve) => setTimeout(() => resolve("quiet"), checkMs).unref());
    const startedAt = Date.now();
    const giveUpAt = startedAt + timeoutMs * 6;
    // The reply is read from the row: a notification lost to a reconnect only delays it to the next look.
    for (;;) {
      const answer = await takeRoutedReply(deps.db, id);
      if (answer) return settle(answer, target);
      if ((await Promise.race([rung, pause()])) === "rung") {
        rung = nextRing();
        continue;
      }
      const late = await takeRoutedReply(deps.db, id);
      if (late) return settle(late, target);
      const timedOut = Date.now() - startedAt >= timeoutMs;
      const gone = !timedOut && (await deps.isGone?.(target)) === true;
      if (!timedOut && !gone) continue;
      // Not taken: the target never saw it, and never will — safe to decide it elsewhere, or try again.
      if (await dropUntakenRoutedRequest(deps.db, id)) {
        if (gone) throw new NotForwarded(target);
        throw new HarborError("INSTANCE_LOST", "The Harbor instance holding this did not answer in time; try again in a moment.");
      }
      // Taken: it is being decided; the answer comes unless the target dies (then it is reclaimed).
      if (Date.now() >= giveUpAt) {
        throw new HarborError(
          "INSTANCE_LOST",
          "The Harbor instance deciding this stopped answering; look at the request before trying again.",
        );
      }
    }
  } finally {
    waiting.delete(id);
  }
}

/** The owner's answer as the sender's own: its runs, or its refusal thrown as it was. */
function settle(answer: Record<string, unknown>, target: string): { runIds: string[] } {
  const reply = Reply.parse(answer);
  if ("returned" in reply) throw new NotForwarded(target);
  if ("error" in reply) throw new HarborError(reply.error.code, reply.error.message, reply.error.details);
  return reply.ok;
}
