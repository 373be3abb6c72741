/**
 * Owner routing: an answer or steering instruction that reaches an instance other than the one
 * holding its run is forwarded there and decided under the same rules. The request is stored sealed
 * (it may carry a private form's value) and only its id travels in `NOTIFY`; the owner answers in
 * the same row, and the sender takes the answer once. A request its target never decides — it
 * stopped serving, or left, before taking it — goes back to its sender (`NotForwarded`), which
 * decides it itself: taken or given back, never both, so it is decided once.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { z } from "zod";
import type { Database } from "@/server/db";
import type { ClusterSignals } from "@/server/db/notifications";
import type { InstanceState } from "@/server/db/queries/instances";
import {
  answerRoutedRequest,
  dropUntakenRoutedRequest,
  returnUntakenRoutedRequests,
  storeRoutedRequest,
  takeRoutedReply,
  takeRoutedRequest,
  untakenRoutedRequests,
} from "@/server/db/queries/routing";
import { ERROR_CODES, SteeringInstruction } from "@/server/domain";
import { asHarborError, HarborError } from "../errors";
import type { Identity } from "../access";

const IdentitySchema = z.object({ tenantId: z.string(), userId: z.string(), roles: z.array(z.enum(["member", "approver", "admin"])) });
const Entry = z.object({
  interactionId: z.string(),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.unknown().optional(),
  resumeToken: z.string().optional(),
});

/** What can be forwarded: the answers of a resume (AG-UI or tRPC), or a steering instruction. */
export const RoutedRequest = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("resolve"),
    identity: IdentitySchema,
    entries: z.array(Entry),
    threadId: z.string().optional(),
    via: z.enum(["agui", "trpc", "console", "oauth_callback", "link"]),
    withTranscript: z.boolean().optional(),
    transport: z.object({ transportRunId: z.string().optional(), requestId: z.string().optional() }),
  }),
  z.object({ type: z.literal("steer"), identity: IdentitySchema, runId: z.string(), instruction: SteeringInstruction }),
]);
export type RoutedRequest = z.infer<typeof RoutedRequest>;

const Reply = z.union([
  z.object({ ok: z.object({ runIds: z.array(z.string()) }) }),
  z.object({ error: z.object({ code: z.enum(ERROR_CODES), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) }),
  // Given back undecided by a target that stopped serving (see `close`).
  z.object({ returned: z.literal(true) }),
]);
export type RoutedReply = z.infer<typeof Reply>;
const RETURNED: RoutedReply = { returned: true };

/**
 * A forwarded request its target did not decide: it gave it back as it stopped, or left before
 * taking it. Nothing was decided there; the sender decides the request itself (the wait is then
 * anyone's, or lost with its process).
 */
export class NotForwarded extends Error {
  constructor(readonly target: string) {
    super(`instance ${target} did not take the request`);
  }
}

export interface Sealer {
  seal(plaintext: string, associated: string): string;
  open(sealed: string, associated: string): string;
}

export interface RoutingDeps {
  db: Database;
  log: Logger;
  instanceId: string;
  signals: ClusterSignals;
  sealer: Sealer;
  /** How long a sender waits for the owner's answer (default 10 s). */
  timeoutMs?: number;
  /** How often a sender waiting for an answer looks whether its target left (default 1 s). */
  checkMs?: number;
  /** Whether an instance has left (stopped, reclaimed, silent too long): a request it never took is given up. */
  isGone?(instanceId: string): Promise<boolean>;
  /** Decides a forwarded request here, as if it had arrived here: the ids of the runs it continued. */
  handle(request: RoutedRequest): Promise<{ runIds: string[] }>;
}

export function createRouter(deps: RoutingDeps) {
  const waiting = new Map<string, () => void>();
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const checkMs = Math.min(deps.checkMs ?? 1_000, timeoutMs);
  /** Requests being served here, and whether this instance serves any more (see `close`). */
  const serving = new Set<Promise<void>>();
  let closed = false;

  deps.signals.onReplied((id) => waiting.get(id)?.());
  const serveOnce = (id: string) => {
    if (closed) return;
    const served = serve(id)
      .catch((error: unknown) => deps.log.error({ err: error, requestId: id }, "a forwarded request could not be answered"))
      .finally(() => serving.delete(served));
    serving.add(served);
  };
  deps.signals.onRouted(serveOnce);

  deps.signals.onReconnected(() => {
    void untakenRoutedRequests(deps.db, deps.instanceId)
      .then((ids) => ids.forEach(serveOnce))
      .catch((error: unknown) => deps.log.warn({ err: error }, "could not look for forwarded requests after a reconnect"));
  });

  async function serve(id: string): Promise<void> {
    const row = await takeRoutedRequest(deps.db, id, deps.instanceId);
    if (!row) return;
    let reply: RoutedReply;
    try {
      const request = RoutedRequest.parse(JSON.parse(deps.sealer.open(row.sealed, id)));
      reply = { ok: await deps.handle(request) };
    } catch (thrown) {
      const error = asHarborError(thrown);
      // This instance is stopping and did nothing with it: its sender decides it itself.
      reply =
        error.code === "INSTANCE_STOPPING" ? RETURNED : { error: { code: error.code, message: error.message, details: error.details } };
    }
    await answerRoutedRequest(deps.db, id, reply);
  }

  /**
   * Forwards `request` to `target` and waits for its answer; the owner's refusal is thrown as it
   * was. Throws `NotForwarded` when the target gives it back, or leaves without taking it.
   */
  async function forward(target: string, request: RoutedRequest): Promise<{ runIds: string[] }> {
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

  /**
   * Stops serving forwarded requests (the instance is stopping): those being served finish, and
   * those not yet taken go back to their senders, which decide them themselves.
   */
  async function close(): Promise<void> {
    closed = true;
    while (serving.size > 0) await Promise.allSettled([...serving]);
    const returned = await returnUntakenRoutedRequests(deps.db, deps.instanceId, RETURNED);
    if (returned > 0) deps.log.info({ returned }, "gave forwarded requests back to their senders");
  }

  return { forward, close };
}

/** The owner's answer as the sender's own: its runs, or its refusal thrown as it was. */
function settle(answer: Record<string, unknown>, target: string): { runIds: string[] } {
  const reply = Reply.parse(answer);
  if ("returned" in reply) throw new NotForwarded(target);
  if ("error" in reply) throw new HarborError(reply.error.code, reply.error.message, reply.error.details);
  return reply.ok;
}

/** How this instance reaches the others (absent: it is alone on its database). */
export interface RouteDeps {
  /** Forwards a request to the instance holding its run; throws `NotForwarded` when that one never takes it. */
  forward(instanceId: string, request: RoutedRequest): Promise<{ runIds: string[] }>;
  /** What the instance is now: `serving`, `stopping` (its durable waits are anyone's) or `gone`. */
  state(instanceId: string): Promise<InstanceState>;
  /** Reclaims dead instances now. */
  reclaim(): Promise<unknown>;
}

/** The identity to forward: exactly what the sender derived. */
export function routedIdentity(identity: Identity): RoutedRequest["identity"] {
  return { tenantId: identity.tenantId, userId: identity.userId, roles: [...identity.roles] };
}
