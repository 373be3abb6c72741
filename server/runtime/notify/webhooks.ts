/**
 * Outgoing webhooks per tenant: admins register a URL for some of the `pause.*` events; Harbor
 * POSTs each event there, signed the Standard Webhooks way (https://www.standardwebhooks.com).
 * The events themselves are written by the database, in the transaction of the change they
 * describe (a trigger on `interactions`), so no code path can change a pause without its message;
 * `webhook-delivery.ts` delivers them.
 *
 * Where a webhook may point: `https` only, never to a private, loopback or link-local address
 * (server-side request forgery) — checked when it is created and again, against every address the
 * name resolves to, when a message is sent. `allowLocal` (HARBOR_WEBHOOKS_ALLOW_LOCAL, for tests
 * and local trials) also lets `http`/`https` reach loopback (127.0.0.1, ::1, localhost).
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { isIP } from "node:net";
import type { Database } from "@/server/db";
import { deleteWebhook, findWebhook, insertWebhook, listDeliveries, listWebhooks, type WebhookRow } from "@/server/db/queries/webhooks";
import { WEBHOOK_EVENTS, type WebhookEvent } from "@/server/domain";
import { open, seal, sealingKey } from "@/server/crypto/sealing";
import { HarborError, InvalidInputError, NotFoundError } from "../errors";
import { assertAdmin, type Identity } from "../access";
import { addressAllowed, isLoopback } from "./outbound-address";

export { WEBHOOK_EVENTS, type WebhookEvent };
export { addressAllowed, isLoopback };

/** Standard Webhooks secrets: `whsec_` + base64 of random bytes (32 here; the format asks for 24 to 64). */
const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** Deliveries listed per call at most. */
export const MAX_DELIVERIES_LISTED = 200;

export interface WebhookSettings {
  /** Lets webhooks reach loopback addresses, over http too (tests, local trials). */
  allowLocal?: boolean;
  /** How often due deliveries are looked for (new ones on this instance wake the worker at once). */
  pollMs?: number;
  /** How long one POST may take. */
  timeoutMs?: number;
  /** The waits before each retry; a delivery is given up (`failed`) after `length + 1` attempts. */
  retryScheduleMs?: readonly number[];
  /** Deliveries of one tenant in flight at once, across instances (its fair share of the workers). */
  perTenant?: number;
  /** Deliveries to one webhook in flight at once, across instances. */
  perWebhook?: number;
  /** Webhooks one tenant may have. */
  maxPerTenant?: number;
}

/** Webhooks one tenant may have, unless the settings say otherwise. */
export const MAX_WEBHOOKS_PER_TENANT = 20;

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000, 6 * 3_600_000];

/** The key webhook secrets are sealed with: derived from the server secret for this purpose alone. */
export function webhookSecretKey(serverSecret: string): Buffer {
  return sealingKey(serverSecret, "harbor.webhooks.v1");
}

export function sealSecret(key: Buffer, secret: string, webhookId: string): string {
  return seal(key, secret, webhookId);
}

export function openSecret(key: Buffer, sealed: string, webhookId: string): string {
  return open(key, sealed, webhookId);
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's bytes after `whsec_`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

const localNames = (host: string) => host === "localhost" || host.endsWith(".localhost");

/**
 * The URL a webhook may POST to, or INVALID_INPUT naming `url`. Names are resolved (and their
 * addresses checked) when a message is sent; literal addresses and `localhost` are judged here.
 */
export function checkWebhookUrl(raw: string, allowLocal: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError("url", "must be an absolute URL");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const local = localNames(host) || (isIP(host) !== 0 && isLoopback(host));
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowLocal && local)) {
    throw new InvalidInputError("url", "must use https");
  }
  if (url.username || url.password) throw new InvalidInputError("url", "must not carry credentials");
  if (local && !allowLocal) throw new InvalidInputError("url", "must not point at this machine");
  if (isIP(host) !== 0 && !addressAllowed(host, allowLocal)) {
    throw new InvalidInputError("url", "must not point at a private, loopback or reserved address");
  }
  if (url.hash) throw new InvalidInputError("url", "must not have a fragment");
  return url;
}

export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdBy: string;
  /** The creator's name, for people to read (null once the account is gone). */
  createdByName: string | null;
  createdAt: string;
}

const view = (row: WebhookRow): WebhookView => ({
  id: row.id,
  url: row.url,
  events: row.events,
  createdBy: row.createdBy,
  createdByName: row.createdByName,
  createdAt: row.createdAt.toISOString(),
});

/** The admin-facing side: register, list and remove a tenant's webhooks, and read their delivery log. */
export function webhookService(
  db: Database,
  serverSecret: string,
  settings: WebhookSettings = {},
  /** Told each tenant that registers a webhook here (the delivery worker then wakes for its changes). */
  onRegistered: (tenantId: string) => void = () => undefined,
) {
  const key = webhookSecretKey(serverSecret);
  const allowLocal = settings.allowLocal ?? false;
  const maxPerTenant = settings.maxPerTenant ?? MAX_WEBHOOKS_PER_TENANT;

  return {
    /** The only answer that ever holds the secret. Audited (`webhook.create`) with the webhook, in one statement. */
    async create(identity: Identity, input: { url: string; events: readonly WebhookEvent[] }) {
      assertAdmin(identity, "webhooks");
      const url = checkWebhookUrl(input.url, allowLocal);
      const events = WEBHOOK_EVENTS.filter((e) => input.events.includes(e));
      if (events.length === 0) throw new InvalidInputError("events", "name at least one event");
      const id = `wh_${randomUUID()}`;
      const secret = `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
      const row = await insertWebhook(
        db,
        {
          id,
          tenantId: identity.tenantId,
          url: url.href,
          events,
          secretSealed: sealSecret(key, secret, id),
          createdBy: identity.userId,
        },
        maxPerTenant,
      );
      if (!row) {
        throw new HarborError("QUOTA_EXCEEDED", `A tenant may have ${maxPerTenant} webhooks: delete one first.`, {
          quota: "webhooks",
          limit: maxPerTenant,
        });
      }
      onRegistered(identity.tenantId);
      return { ...view(row), secret };
    },

    async list(identity: Identity): Promise<WebhookView[]> {
      assertAdmin(identity, "webhooks");
      return (await listWebhooks(db, identity.tenantId)).map(view);
    },

    /** Audited (`webhook.delete`) in the statement that deletes it. */
    async delete(identity: Identity, webhookId: string): Promise<void> {
      assertAdmin(identity, "webhooks");
      if (!(await deleteWebhook(db, identity.tenantId, webhookId, identity.userId))) throw new NotFoundError("Webhook");
    },

    /** The delivery log of one of the tenant's webhooks: newest first, each with its attempts. */
    async deliveries(identity: Identity, webhookId: string, limit = 50) {
      assertAdmin(identity, "webhooks");
      const hook = await findWebhook(db, identity.tenantId, webhookId);
      if (!hook) throw new NotFoundError("Webhook");
      const rows = await listDeliveries(db, hook.id, Math.min(Math.max(1, limit), MAX_DELIVERIES_LISTED));
      return rows.map((r) => ({
        id: r.id,
        event: r.event,
        /** The body as stored (ids, kind, status, tool name: nothing private); decision links are added only as it is sent. */
        payload: r.payload,
        status: r.status,
        attempts: r.attempts,
        lastStatusCode: r.lastStatusCode,
        lastError: r.lastError,
        createdAt: r.createdAt.toISOString(),
        deliveredAt: r.deliveredAt?.toISOString() ?? null,
        nextAttemptAt: r.nextAttemptAt?.toISOString() ?? null,
        log: r.log.map((a) => ({ ...a, at: a.at.toISOString() })),
      }));
    },
  };
}
