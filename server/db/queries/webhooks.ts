/**
 * Outgoing webhooks: their registrations, and the delivery outbox a trigger on `interactions`
 * fills (see migration 0014). Deliveries are taken under a lease (`FOR UPDATE SKIP LOCKED`), so
 * several serving processes never POST one row at once; each attempt's outcome is recorded in the
 * statement that releases the lease.
 */
import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowCount, rowsOf } from "./rows";
import { webhookPayloadCodec, type WebhookPayload } from "../codecs/records";
import { users, webhookAttempts, webhookDeliveries, webhooks } from "../schema";
import { WEBHOOK_EVENTS, type WebhookDeliveryStatus, type WebhookEvent } from "@/server/domain";

export interface WebhookRow {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdBy: string;
  /** The creator's display name (null once the account is gone). */
  createdByName: string | null;
  createdAt: Date;
}

const webhookColumns = {
  id: webhooks.id,
  url: webhooks.url,
  events: webhooks.events,
  createdBy: webhooks.createdBy,
  createdByName: users.name,
  createdAt: webhooks.createdAt,
};

const rawWebhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  created_by: z.string(),
  created_by_name: z.string().nullable(),
  created_at: column.date,
});

const fromRaw = (r: z.output<typeof rawWebhook>): WebhookRow => ({
  id: r.id,
  url: r.url,
  events: r.events,
  createdBy: r.created_by,
  createdByName: r.created_by_name,
  createdAt: r.created_at,
});

/** The audit log's view of a webhook's URL: its host (and port), never its path or query. */
const hostOf = (url: SQL) => sql`substring(${url} from '^[^:]+://([^/?#]+)')`;

/**
 * Registers a webhook and audits it (`webhook.create`: the actor, the URL's host and the events —
 * never the secret) in one statement: there is no webhook without its audit row.
 */
export async function insertWebhook(
  db: Executor,
  row: { id: string; tenantId: string; url: string; events: WebhookEvent[]; secretSealed: string; createdBy: string },
  maxPerTenant: number,
): Promise<WebhookRow | undefined> {
  // At the tenant's cap nothing is written (k creations at the same moment may pass it by k - 1).
  const result = await db.execute(sql`
    with created as (
      insert into webhooks (id, tenant_id, url, events, secret_sealed, created_by)
      select ${row.id}, ${row.tenantId}, ${row.url}, ${sql.param([...row.events])}::text[], ${row.secretSealed}, ${row.createdBy}
      where (select count(*) from webhooks where tenant_id = ${row.tenantId}) < ${maxPerTenant}
      returning id, tenant_id, url, events, created_by, created_at
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, created_by, 'webhook.create', 'webhook', id, 'created',
        jsonb_build_object('host', ${hostOf(sql`url`)}, 'events', to_jsonb(events))
      from created
    )
    select c.id, c.url, c.events, c.created_by, u.name as created_by_name, c.created_at
    from created c left join users u on u.id = c.created_by`);
  const [created] = rowsOf(result, rawWebhook);
  return created ? fromRaw(created) : undefined;
}

/** A tenant's webhooks, newest first, without their secrets. */
export async function listWebhooks(db: Executor, tenantId: string): Promise<WebhookRow[]> {
  return db
    .select(webhookColumns)
    .from(webhooks)
    .leftJoin(users, eq(users.id, webhooks.createdBy))
    .where(eq(webhooks.tenantId, tenantId))
    .orderBy(desc(webhooks.createdAt), desc(webhooks.id));
}

export async function findWebhook(db: Executor, tenantId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db
    .select(webhookColumns)
    .from(webhooks)
    .leftJoin(users, eq(users.id, webhooks.createdBy))
    .where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.id, id)))
    .limit(1);
  return row;
}

/**
 * Removes a tenant's webhook with its delivery log, and audits it (`webhook.delete` by `actorId`,
 * with the URL's host and the events) in the same statement; false when the tenant has no such webhook.
 */
export async function deleteWebhook(db: Executor, tenantId: string, id: string, actorId: string): Promise<boolean> {
  const result = await db.execute(sql`
    with deleted as (
      delete from webhooks where tenant_id = ${tenantId} and id = ${id}
      returning id, tenant_id, url, events
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, ${actorId}, 'webhook.delete', 'webhook', id, 'deleted',
        jsonb_build_object('host', ${hostOf(sql`url`)}, 'events', to_jsonb(events))
      from deleted
    )
    select id from deleted`);
  return rowCount(result) > 0;
}

export interface DeliveryLogRow {
  id: string;
  event: WebhookEvent;
  payload: WebhookPayload;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  log: { attempt: number; statusCode: number | null; error: string | null; durationMs: number; at: Date }[];
}

/** A webhook's latest deliveries (newest first) with every attempt of each. */
export async function listDeliveries(db: Executor, webhookId: string, limit: number): Promise<DeliveryLogRow[]> {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  const ids = rows.map((r) => r.id);
  const attempts =
    ids.length === 0
      ? []
      : await db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).orderBy(webhookAttempts.attempt);
  return rows.map((r) => ({
    id: r.id,
    event: r.event,
    payload: webhookPayloadCodec.decode(r.payload, r.payloadVersion),
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === "pending" ? r.nextAttemptAt : null,
    lastStatusCode: r.lastStatusCode,
    lastError: r.lastError,
    createdAt: r.createdAt,
    deliveredAt: r.deliveredAt,
    log: attempts
      .filter((a) => a.deliveryId === r.id)
      .map((a) => ({ attempt: a.attempt, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs, at: a.createdAt })),
  }));
}

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  url: string;
  secretSealed: string;
  /** The body to send, read as it is sent: an unreadable one fails that delivery alone. */
  readPayload(): WebhookPayload;
  /** This attempt's number (1 = the first). */
  attempt: number;
}

const rawClaim = z.object({
  id: z.string(),
  webhook_id: z.string(),
  url: z.string(),
  secret_sealed: z.string(),
  payload: column.json,
  payload_version: z.number(),
  attempts: z.number(),
});

/** The tenants with at least one webhook: only their interactions' changes write deliveries. */
export async function tenantsWithWebhooks(db: Executor): Promise<string[]> {
  return rowsOf(await db.execute(sql`select distinct tenant_id from webhooks`), z.object({ tenant_id: z.string() })).map(
    (r) => r.tenant_id,
  );
}

/** How many deliveries may be in flight at once, across every instance. */
export interface DeliveryShares {
  /** Of one tenant: one tenant's slow or silent endpoints never hold every worker. */
  perTenant: number;
  /** Of one webhook: one slow endpoint never holds all of its tenant's share. */
  perWebhook: number;
}

/**
 * Takes up to `limit` due deliveries nobody holds, for `owner`, under a lease of `leaseMs`, except
 * those it is already delivering (`busy`). Rows another process is taking are skipped, not waited for.
 *
 * Fair: deliveries in flight anywhere (leased, not expired) count against their tenant's and their
 * webhook's share; each webhook offers its oldest due ones within its share, and those are taken
 * tenant by tenant in turn. A webhook with many due deliveries at an endpoint that never answers
 * waits for its own share, while its tenant's other webhooks and other tenants' go out at once.
 * Every part is an index walk (migration 0023), so a large backlog slows no one else's claim.
 */
export async function claimDueDeliveries(
  db: Executor,
  owner: string,
  leaseMs: number,
  limit: number,
  shares: DeliveryShares,
  busy: readonly string[] = [],
): Promise<ClaimedDelivery[]> {
  const result = await db.execute(sql`
    with recursive pairs as (
      -- The (tenant, webhook) pairs with pending deliveries, one index step each (a skip scan).
      (select tenant_id, webhook_id from webhook_deliveries where status = 'pending' order by tenant_id, webhook_id limit 1)
      union all
      select n.tenant_id, n.webhook_id from pairs p cross join lateral (
        select tenant_id, webhook_id from webhook_deliveries
        where status = 'pending' and (tenant_id, webhook_id) > (p.tenant_id, p.webhook_id)
        order by tenant_id, webhook_id limit 1
      ) n
    ),
    inflight as (
      select tenant_id, webhook_id from webhook_deliveries where status = 'pending' and lease_until >= now()
    ),
    candidates as (
      -- Each webhook's oldest due deliveries nobody holds, no more than its share.
      select d.id, d.tenant_id, d.webhook_id, d.next_attempt_at
      from pairs p cross join lateral (
        select id, tenant_id, webhook_id, next_attempt_at from webhook_deliveries
        where tenant_id = p.tenant_id and webhook_id = p.webhook_id and status = 'pending' and next_attempt_at <= now()
          and (lease_until is null or lease_until < now()) and id <> all(${sql.param([...busy])}::text[])
        order by next_attempt_at
        limit ${shares.perWebhook}
      ) d
    ),
    -- Within its webhook's share first, then its tenant's: a webhook at its share takes none of
    -- its tenant's places.
    within_webhook as (
      select c.*,
        row_number() over (partition by c.webhook_id order by c.next_attempt_at, c.id)
          + (select count(*) from inflight i where i.webhook_id = c.webhook_id) as webhook_rank
      from candidates c
    ),
    ranked as (
      select w.id, w.next_attempt_at,
        row_number() over (partition by w.tenant_id order by w.next_attempt_at, w.id)
          + (select count(*) from inflight i where i.tenant_id = w.tenant_id) as tenant_rank
      from within_webhook w where w.webhook_rank <= ${shares.perWebhook}
    ),
    chosen as (
      select id from ranked where tenant_rank <= ${shares.perTenant}
      order by tenant_rank, next_attempt_at
      limit ${limit}
    ),
    claimed as (
      update webhook_deliveries set lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond',
        attempts = attempts + 1
      where id in (
        select id from webhook_deliveries
        where id in (select id from chosen) and status = 'pending' and (lease_until is null or lease_until < now())
        for update skip locked
      )
      returning id, webhook_id, payload, payload_version, attempts
    )
    select c.id, c.webhook_id, c.payload, c.payload_version, c.attempts, w.url, w.secret_sealed
    from claimed c join webhooks w on w.id = c.webhook_id`);
  return rowsOf(result, rawClaim).map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    url: r.url,
    secretSealed: r.secret_sealed,
    readPayload: () => webhookPayloadCodec.decode(r.payload, r.payload_version),
    attempt: r.attempts,
  }));
}

export interface AttemptOutcome {
  deliveryId: string;
  owner: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** `pending` with `retryInMs` for another attempt later. */
  status: WebhookDeliveryStatus;
  retryInMs?: number;
}

/**
 * Records an attempt and releases the lease, in one statement; nothing happens when the lease is
 * no longer `owner`'s (it ran out and another process took the row). Returns whether it was recorded.
 */
export async function recordAttempt(db: Executor, o: AttemptOutcome): Promise<boolean> {
  const result = await db.execute(sql`
    with released as (
      update webhook_deliveries set status = ${o.status},
        next_attempt_at = case when ${o.status} = 'pending' then now() + ${o.retryInMs ?? 0} * interval '1 millisecond'
          else next_attempt_at end,
        lease_owner = null, lease_until = null, last_status_code = ${o.statusCode}, last_error = ${o.error},
        delivered_at = case when ${o.status} = 'delivered' then now() else null end
      where id = ${o.deliveryId} and lease_owner = ${o.owner} and status = 'pending'
      returning id
    )
    insert into webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, instance_id)
    select id, ${o.attempt}, ${o.statusCode}, ${o.error}, ${o.durationMs}, ${o.owner} from released
    returning delivery_id`);
  return rowCount(result) > 0;
}
