/**
 * Owner routing: an answer or steering instruction that reaches an instance other than the one
 * holding its run is forwarded there and decided under the same rules. The request is stored sealed
 * (it may carry a private form's value) and only its id travels in `NOTIFY`; the owner answers in
 * the same row, and the sender takes the answer once.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { z } from "zod";
import type { Database } from "@/server/db";
import type { ClusterSignals } from "@/server/db/notifications";
import {
  answerRoutedRequest,
  dropUntakenRoutedRequest,
  storeRoutedRequest,
  takeRoutedReply,
  takeRoutedRequest,
  untakenRoutedRequests,
} from "@/server/db/queries/routing";
import { ERROR_CODES, SteeringInstruction } from "@/server/domain";
import { asHarborError, HarborError } from "./errors";
import type { Identity } from "./identity";

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
]);
export type RoutedReply = z.infer<typeof Reply>;

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
  /** Decides a forwarded request here, as if it had arrived here: the ids of the runs it continued. */
  handle(request: RoutedRequest): Promise<{ runIds: string[] }>;
}

export function createRouter(deps: RoutingDeps) {
  const waiting = new Map<string, () => void>();
  const timeoutMs = deps.timeoutMs ?? 10_000;

  deps.signals.onReplied((id) => waiting.get(id)?.());
  const serveOnce = (id: string) => {
    void serve(id).catch((error: unknown) => deps.log.error({ err: error, requestId: id }, "a forwarded request could not be answered"));
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
      reply = { error: { code: error.code, message: error.message, details: error.details } };
    }
    await answerRoutedRequest(deps.db, id, reply);
  }

  /** Forwards `request` to `target` and waits for its answer; the owner's refusal is thrown as it was. */
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
      const deadline = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());
      let timer = deadline(timeoutMs);
      const giveUpAt = Date.now() + timeoutMs * 6;
      // The reply is read from the row: a notification lost to a reconnect only delays it to the deadline.
      for (;;) {
        const answer = await takeRoutedReply(deps.db, id);
        if (answer) return settle(answer);
        if ((await Promise.race([rung, timer])) === "timeout") {
          const late = await takeRoutedReply(deps.db, id);
          if (late) return settle(late);
          // Not taken: the owner never saw it, and never will — safe to try again.
          if (await dropUntakenRoutedRequest(deps.db, id)) {
            throw new HarborError("INSTANCE_LOST", "The Harbor instance holding this did not answer in time; try again in a moment.");
          }
          // Taken: it is being decided; the answer comes unless the owner dies (then it is reclaimed).
          if (Date.now() < giveUpAt) {
            timer = deadline(timeoutMs);
            rung = nextRing();
            continue;
          }
          throw new HarborError(
            "INSTANCE_LOST",
            "The Harbor instance deciding this stopped answering; look at the request before trying again.",
          );
        }
        rung = nextRing();
      }
    } finally {
      waiting.delete(id);
    }
  }

  return { forward };
}

/** The owner's answer as the sender's own: its runs, or its refusal thrown as it was. */
function settle(answer: Record<string, unknown>): { runIds: string[] } {
  const reply = Reply.parse(answer);
  if ("error" in reply) throw new HarborError(reply.error.code, reply.error.message, reply.error.details);
  return reply.ok;
}

/** How this instance reaches the others (absent: it is alone on its database). */
export interface RouteDeps {
  forward(instanceId: string, request: RoutedRequest): Promise<{ runIds: string[] }>;
  isAlive(instanceId: string): Promise<boolean>;
  /** Reclaims dead instances now. */
  reclaim(): Promise<unknown>;
}

/** The identity to forward: exactly what the sender derived. */
export function routedIdentity(identity: Identity): RoutedRequest["identity"] {
  return { tenantId: identity.tenantId, userId: identity.userId, roles: [...identity.roles] };
}
