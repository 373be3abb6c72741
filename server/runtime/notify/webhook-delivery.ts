/**
 * The webhook delivery worker, one per serving process. It takes due rows of the outbox under a
 * lease (`FOR UPDATE SKIP LOCKED`: two processes never POST one row at once; a process that dies
 * mid-POST leaves the row to be taken again once its lease runs out), POSTs the JSON body with the
 * Standard Webhooks headers, and records the attempt in the statement that releases the lease.
 * A 2xx delivers; anything else is retried after the next wait of the schedule (with ±20 % jitter)
 * until the schedule is used up, then the delivery is `failed`. The `webhook-id` is the row's id,
 * the same on every attempt, so receivers drop repeats by it.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { attemptDelivery, type AttemptContext } from "./webhook-attempt";
import { idleState, mayHaveDeliveries, tick, wakeIn, type OutboxPoll, type OutboxPollConfig } from "./webhook-outbox-poll";
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, webhookSecretKey, type WebhookSettings } from "./webhooks";

export { guardedLookup } from "./webhook-post";

/** Deliveries of one tenant in flight at once, across instances: no tenant holds every worker. */
const TENANT_SHARE = 8;
/** Deliveries to one webhook in flight at once: one slow endpoint leaves its tenant's other webhooks room. */
const WEBHOOK_SHARE = 4;
const KICK_COALESCE_MS = 20;

export interface WebhookWorkerDeps {
  db: Database;
  log: Logger;
  instanceId: string;
  serverSecret: string;
  settings?: WebhookSettings;
  /**
   * Completes a message as it is sent (each attempt): `pause.requested` of an approvers' gate gets
   * its decision links, minted now and kept nowhere. A failure counts as a failed attempt (retried).
   */
  prepare?(payload: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** The worker's settings with their defaults, and a worker not started yet. */
function outboxPoll(deps: WebhookWorkerDeps): OutboxPoll {
  const timeoutMs = deps.settings?.timeoutMs ?? 10_000;
  const attempt: AttemptContext = {
    db: deps.db,
    log: deps.log,
    instanceId: deps.instanceId,
    key: webhookSecretKey(deps.serverSecret),
    timeoutMs,
    retrySchedule: deps.settings?.retryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
    allowLocal: deps.settings?.allowLocal ?? false,
    prepare: deps.prepare,
  };
  const config: OutboxPollConfig = {
    db: deps.db,
    log: deps.log,
    instanceId: deps.instanceId,
    pollMs: deps.settings?.pollMs ?? 1_000,
    // Outlives any POST, so a live process never loses a row it is delivering.
    leaseMs: timeoutMs * 2 + 5_000,
    shares: { perTenant: deps.settings?.perTenant ?? TENANT_SHARE, perWebhook: deps.settings?.perWebhook ?? WEBHOOK_SHARE },
    deliver: (delivery) => attemptDelivery(attempt, delivery),
  };
  return { config, state: idleState() };
}

export function createWebhookWorker(deps: WebhookWorkerDeps) {
  const poll = outboxPoll(deps);
  const { state } = poll;

  return {
    start() {
      if (!state.stopped) return;
      state.stopped = false;
      wakeIn(poll, 0);
    },
    /** A webhook was registered here: changes of its tenant's interactions wake the worker from now on. */
    registered(tenantId: string) {
      state.registeredHere.add(tenantId);
    },
    /**
     * Looks for due deliveries soon (after a change of `tenantId`'s that may have written some). Kicks within
     * `KICK_COALESCE_MS` share one look, so a burst of pauses costs one query, not one each.
     */
    kick(tenantId: string) {
      if (state.stopped || state.kicked || !mayHaveDeliveries(state, tenantId)) return;
      state.kicked = setTimeout(() => {
        state.kicked = undefined;
        if (!state.stopped) void tick(poll);
      }, KICK_COALESCE_MS);
      state.kicked.unref();
    },
    /** Waits until the deliveries in flight are done. */
    async idle() {
      await state.ticking;
      await Promise.all(state.running.values());
    },
    async stop() {
      state.stopped = true;
      clearTimeout(state.timer);
      clearTimeout(state.kicked);
      state.kicked = undefined;
      await state.ticking;
      await Promise.all(state.running.values());
    },
  };
}

/**
 * `onChange` as the inboxes see it, counting their listeners, so whether an inbox watches here does
 * not depend on the webhook worker's own listener.
 */
export function countedListeners<T>(onChange: (listener: (change: T) => void) => () => void) {
  let count = 0;
  return {
    watching: () => count > 0,
    onChange(listener: (change: T) => void): () => void {
      const off = onChange(listener);
      count += 1;
      let on = true;
      return () => {
        if (!on) return;
        on = false;
        count -= 1;
        off();
      };
    },
  };
}
