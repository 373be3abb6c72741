/**
 * The webhook worker's look at the outbox: due rows taken under a lease (`FOR UPDATE SKIP LOCKED`),
 * each handed to a delivery of its own, as many at once as there are free slots. One look runs at
 * a time; asked for while one runs, the next follows at once.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { claimDueDeliveries, tenantsWithWebhooks, type ClaimedDelivery, type DeliveryShares } from "@/server/db/queries/webhooks";

const MAX_CONCURRENT = 20;

/** What the worker is set up with, fixed for its life. */
export interface OutboxPollConfig {
  db: Database;
  log: Logger;
  instanceId: string;
  pollMs: number;
  leaseMs: number;
  shares: DeliveryShares;
  deliver(delivery: ClaimedDelivery): Promise<void>;
}

/** What the worker changes as it runs. */
export interface OutboxPollState {
  /** The deliveries in flight, by row id. */
  readonly running: Map<string, Promise<void>>;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
  ticking: Promise<void> | undefined;
  again: boolean;
  kicked: NodeJS.Timeout | undefined;
  /**
   * The tenants with webhooks as of the last periodic look (unknown before the first). A change of
   * another tenant's interaction wrote no delivery (the outbox trigger writes none without a
   * subscribed webhook), so it wakes nobody. A webhook registered here counts at once; one
   * registered on another instance counts from the next look, within `pollMs`, and until then its
   * deliveries are found by the periodic look they would otherwise have waited for.
   */
  tenantsWithHooks: ReadonlySet<string> | undefined;
  lookedAt: number;
  readonly registeredHere: Set<string>;
}

export interface OutboxPoll {
  config: OutboxPollConfig;
  state: OutboxPollState;
}

/** A worker that has not started yet. */
export function idleState(): OutboxPollState {
  return {
    running: new Map(),
    timer: undefined,
    stopped: true,
    ticking: undefined,
    again: false,
    kicked: undefined,
    tenantsWithHooks: undefined,
    lookedAt: 0,
    registeredHere: new Set(),
  };
}

export function mayHaveDeliveries(state: OutboxPollState, tenantId: string): boolean {
  return !state.tenantsWithHooks || state.tenantsWithHooks.has(tenantId) || state.registeredHere.has(tenantId);
}

export function wakeIn(poll: OutboxPoll, ms: number): void {
  const { state } = poll;
  if (state.stopped) return;
  clearTimeout(state.timer);
  state.timer = setTimeout(() => void tick(poll), ms);
  state.timer.unref();
}

export function tick(poll: OutboxPoll): Promise<void> {
  const { config, state } = poll;
  if (state.ticking) {
    state.again = true;
    return state.ticking;
  }
  const free = MAX_CONCURRENT - state.running.size;
  // Every slot busy: the first delivery to finish wakes the worker again.
  if (free <= 0) return Promise.resolve();
  // Always settles after an await, so `ticking` is cleared after it was set, never before.
  state.ticking = (async () => {
    try {
      if (Date.now() - state.lookedAt >= config.pollMs) {
        state.lookedAt = Date.now();
        state.tenantsWithHooks = new Set(await tenantsWithWebhooks(config.db));
      }
      const due = await claimDueDeliveries(config.db, config.instanceId, config.leaseMs, free, config.shares, [...state.running.keys()]);
      for (const delivery of due) startDelivery(poll, delivery);
    } catch (error) {
      config.log.error({ err: error }, "could not take due webhook deliveries");
    } finally {
      state.ticking = undefined;
      const now = state.again;
      state.again = false;
      wakeIn(poll, now ? 0 : config.pollMs);
    }
  })();
  return state.ticking;
}

function startDelivery(poll: OutboxPoll, delivery: ClaimedDelivery): void {
  const { config, state } = poll;
  const work = config
    .deliver(delivery)
    .catch((error: unknown) =>
      config.log.error({ err: error, deliveryId: delivery.id }, "webhook delivery failed; it is retried once its lease runs out"),
    )
    .finally(() => {
      state.running.delete(delivery.id);
      // A freed slot may take what waited for one.
      if (!state.stopped) wakeIn(poll, 0);
    });
  state.running.set(delivery.id, work);
}
