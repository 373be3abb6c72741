/**
 * The webhook delivery worker, one per serving process. It takes due rows of the outbox under a
 * lease (`FOR UPDATE SKIP LOCKED`: two processes never POST one row at once; a process that dies
 * mid-POST leaves the row to be taken again once its lease runs out), POSTs the JSON body with the
 * Standard Webhooks headers, and records the attempt in the statement that releases the lease.
 * A 2xx delivers; anything else is retried after the next wait of the schedule (with ±20 % jitter)
 * until the schedule is used up, then the delivery is `failed`. The `webhook-id` is the row's id,
 * the same on every attempt, so receivers drop repeats by it.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { claimDueDeliveries, recordAttempt, tenantsWithWebhooks, type ClaimedDelivery } from "@/server/db/queries/webhooks";
import {
  addressAllowed,
  checkWebhookUrl,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  openSecret,
  signWebhook,
  webhookSecretKey,
  type WebhookSettings,
} from "./webhooks";

const MAX_CONCURRENT = 20;
/** Deliveries of one tenant in flight at once, across instances: no tenant holds every worker. */
const TENANT_SHARE = 8;
/** Deliveries to one webhook in flight at once: one slow endpoint leaves its tenant's other webhooks room. */
const WEBHOOK_SHARE = 4;
const KICK_COALESCE_MS = 20;
/** The most of an error's text kept in the delivery log. */
const MAX_ERROR_CHARS = 500;

/** Resolves a name like the system does, refusing it when any of its addresses may not be reached. */
export function guardedLookup(allowLocal: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((a) => !addressAllowed(a.address, allowLocal));
      if (refused || addresses.length === 0) {
        const denied: NodeJS.ErrnoException = new Error(`${hostname} resolves to an address webhooks may not reach`);
        denied.code = "EADDRNOTALLOWED";
        return callback(denied, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

/** POSTs `body`; the answer's status code (its body is discarded), or a rejection naming what failed. */
function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, allowLocal: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(allowLocal),
        agent: false,
      },
      (response) => {
        clearTimeout(timer);
        resolve(response.statusCode ?? 0);
        response.resume();
        response.on("error", () => undefined);
        // Receivers that keep talking are not listened to.
        setTimeout(() => response.destroy(), 1_000).unref();
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}

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

export function createWebhookWorker(deps: WebhookWorkerDeps) {
  const key = webhookSecretKey(deps.serverSecret);
  const pollMs = deps.settings?.pollMs ?? 1_000;
  const timeoutMs = deps.settings?.timeoutMs ?? 10_000;
  const retrySchedule = deps.settings?.retryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS;
  const allowLocal = deps.settings?.allowLocal ?? false;
  const shares = { perTenant: deps.settings?.perTenant ?? TENANT_SHARE, perWebhook: deps.settings?.perWebhook ?? WEBHOOK_SHARE };
  // Outlives any POST, so a live process never loses a row it is delivering.
  const leaseMs = timeoutMs * 2 + 5_000;
  const running = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let ticking: Promise<void> | undefined;
  let again = false;
  let kicked: NodeJS.Timeout | undefined;
  /**
   * The tenants with webhooks as of the last periodic look (unknown before the first). A change of
   * another tenant's interaction wrote no delivery (the outbox trigger writes none without a
   * subscribed webhook), so it wakes nobody. A webhook registered here counts at once; one
   * registered on another instance counts from the next look, within `pollMs`, and until then its
   * deliveries are found by the periodic look they would otherwise have waited for.
   */
  let tenantsWithHooks: ReadonlySet<string> | undefined;
  let lookedAt = 0;
  const registeredHere = new Set<string>();
  const mayHaveDeliveries = (tenantId: string) => !tenantsWithHooks || tenantsWithHooks.has(tenantId) || registeredHere.has(tenantId);

  function wakeIn(ms: number) {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
    timer.unref();
  }

  function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return ticking;
    }
    const free = MAX_CONCURRENT - running.size;
    // Every slot busy: the first delivery to finish wakes the worker again.
    if (free <= 0) return Promise.resolve();
    // Always settles after an await, so `ticking` is cleared after it was set, never before.
    ticking = (async () => {
      try {
        if (Date.now() - lookedAt >= pollMs) {
          lookedAt = Date.now();
          tenantsWithHooks = new Set(await tenantsWithWebhooks(deps.db));
        }
        const due = await claimDueDeliveries(deps.db, deps.instanceId, leaseMs, free, shares, [...running.keys()]);
        for (const delivery of due) {
          const work = deliver(delivery)
            .catch((error: unknown) =>
              deps.log.error({ err: error, deliveryId: delivery.id }, "webhook delivery failed; it is retried once its lease runs out"),
            )
            .finally(() => {
              running.delete(delivery.id);
              // A freed slot may take what waited for one.
              if (!stopped) wakeIn(0);
            });
          running.set(delivery.id, work);
        }
      } catch (error) {
        deps.log.error({ err: error }, "could not take due webhook deliveries");
      } finally {
        ticking = undefined;
        const now = again;
        again = false;
        wakeIn(now ? 0 : pollMs);
      }
    })();
    return ticking;
  }

  /** The wait before the next attempt after failed attempt `attempt`, or undefined when it was the last. */
  function retryIn(attempt: number): number | undefined {
    const base = retrySchedule[attempt - 1];
    return base === undefined ? undefined : Math.round(base * (0.8 + Math.random() * 0.4));
  }

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const log = deps.log.child({ deliveryId: delivery.id, webhookId: delivery.webhookId, attempt: delivery.attempt });
    let body: string;
    const timestamp = Math.floor(Date.now() / 1000);
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const url = checkWebhookUrl(delivery.url, allowLocal);
      const secret = openSecret(key, delivery.secretSealed, delivery.webhookId);
      // A payload this release cannot read (STATE_UNREADABLE) is never sent, nor retried.
      const payload = delivery.readPayload();
      body = JSON.stringify(payload);
      try {
        // What is added when it is sent (decision links) is never stored with the message.
        if (deps.prepare) body = JSON.stringify(await deps.prepare(payload));
        const headers = {
          "content-type": "application/json",
          "user-agent": "Harbor-Webhooks/1",
          "webhook-id": delivery.id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signWebhook(secret, delivery.id, timestamp, body),
        };
        statusCode = await post(url, headers, body, timeoutMs, allowLocal);
        if (statusCode < 200 || statusCode >= 300) error = `answered HTTP ${statusCode}`;
      } catch (thrown) {
        error = thrown instanceof Error ? thrown.message : String(thrown);
      }
    } catch (thrown) {
      // The URL is no longer allowed (settings changed), the secret does not open, or the payload
      // cannot be read: retrying cannot help.
      refused = true;
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
    const wait = error === null || refused ? undefined : retryIn(delivery.attempt);
    const status = error === null ? "delivered" : wait === undefined ? "failed" : "pending";
    const recorded = await recordAttempt(deps.db, {
      deliveryId: delivery.id,
      owner: deps.instanceId,
      attempt: delivery.attempt,
      statusCode,
      error: error?.slice(0, MAX_ERROR_CHARS) ?? null,
      durationMs: Date.now() - started,
      status,
      retryInMs: wait,
    });
    if (!recorded) log.warn("a webhook delivery's lease ran out before its attempt was recorded");
    else if (status === "failed") log.warn({ error }, "webhook delivery given up");
    else if (status === "pending") log.info({ error, retryInMs: wait }, "webhook delivery will be retried");
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      wakeIn(0);
    },
    /** A webhook was registered here: changes of its tenant's interactions wake the worker from now on. */
    registered(tenantId: string) {
      registeredHere.add(tenantId);
    },
    /**
     * Looks for due deliveries soon (after a change of `tenantId`'s that may have written some). Kicks within
     * `KICK_COALESCE_MS` share one look, so a burst of pauses costs one query, not one each.
     */
    kick(tenantId: string) {
      if (stopped || kicked || !mayHaveDeliveries(tenantId)) return;
      kicked = setTimeout(() => {
        kicked = undefined;
        if (!stopped) void tick();
      }, KICK_COALESCE_MS);
      kicked.unref();
    },
    /** Waits until the deliveries in flight are done. */
    async idle() {
      await ticking;
      await Promise.all(running.values());
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(kicked);
      kicked = undefined;
      await ticking;
      await Promise.all(running.values());
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
