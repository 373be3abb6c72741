/**
 * PostgreSQL `LISTEN/NOTIFY` between Harbor instances: one dedicated connection per process (a
 * pooled one must not LISTEN), reconnected with backoff and re-LISTENed; after a reconnect anything
 * may have been missed, so listeners are told to re-read. Payloads carry ids only
 * (`<instance>|<id>`): the data is read from the tables.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Logger } from "pino";
import type { Executor } from "./client";

const CHANNELS = ["harbor_run_events", "harbor_interactions", "harbor_routes", "harbor_replies", "harbor_queue"] as const;
type Channel = (typeof CHANNELS)[number];

/** What other instances say, as this instance hears it. */
export interface ClusterSignals {
  /** Another instance stored events of this run. */
  onRunEvents(listener: (runId: string) => void): () => void;
  /** Another instance created or changed this interaction. */
  onInteraction(listener: (interactionId: string) => void): () => void;
  /** A request forwarded to this instance, or the reply to one it forwarded. */
  onRouted(listener: (requestId: string) => void): () => void;
  onReplied(listener: (requestId: string) => void): () => void;
  /** A run was queued somewhere: an instance with room may take it. */
  onQueued(listener: () => void): () => void;
  /** The listening connection was re-established: re-read what may have been missed. */
  onReconnected(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Tells every instance that a run waits in the cluster's queue. */
export async function signalQueued(db: Executor, me: string) {
  await db.execute(sql`select pg_notify('harbor_queue', ${`${me}|`})`);
}

export async function listenForSignals(url: string, me: string, log: Logger): Promise<ClusterSignals> {
  const listeners: Record<Channel | "reconnected", Set<(id: string) => void>> = {
    harbor_run_events: new Set(),
    harbor_interactions: new Set(),
    harbor_routes: new Set(),
    harbor_replies: new Set(),
    harbor_queue: new Set(),
    reconnected: new Set(),
  };
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 250;

  const dispatch = (channel: string, payload: string | undefined) => {
    const separator = payload?.indexOf("|") ?? -1;
    if (!payload || separator < 0 || !(CHANNELS as readonly string[]).includes(channel)) return;
    const who = payload.slice(0, separator);
    const id = payload.slice(separator + 1);
    // Changes: what others wrote (this instance saw its own). Routes and replies: those addressed to it.
    const mine = channel === "harbor_routes" || channel === "harbor_replies" ? who === me : who !== me;
    if (mine) for (const listener of listeners[channel as Channel]) listener(id);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url, application_name: `harbor-listen:${me}` });
    next.on("notification", (message) => dispatch(message.channel, message.payload));
    next.on("error", (error) => {
      log.warn({ err: error }, "the listening connection failed; reconnecting");
      void reconnect(next);
    });
    next.on("end", () => void reconnect(next));
    await next.connect();
    for (const channel of CHANNELS) await next.query(`LISTEN ${channel}`);
    client = next;
    retryMs = 250;
  }

  async function reconnect(failed: pg.Client): Promise<void> {
    if (closed || client !== failed) return;
    client = undefined;
    failed.removeAllListeners("end");
    await failed.end().catch(() => undefined);
    while (!closed && !client) {
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      retryMs = Math.min(retryMs * 2, 5_000);
      try {
        await connect();
        for (const listener of listeners.reconnected) listener("");
      } catch (error) {
        log.warn({ err: error, retryMs }, "cannot listen for other instances yet");
      }
    }
  }

  await connect();
  const on = (channel: Channel | "reconnected", listener: (id: string) => void) => {
    listeners[channel].add(listener);
    return () => void listeners[channel].delete(listener);
  };
  return {
    onRunEvents: (listener) => on("harbor_run_events", listener),
    onInteraction: (listener) => on("harbor_interactions", listener),
    onRouted: (listener) => on("harbor_routes", listener),
    onReplied: (listener) => on("harbor_replies", listener),
    onQueued: (listener) => on("harbor_queue", () => listener()),
    onReconnected: (listener) => on("reconnected", () => listener()),
    async close() {
      closed = true;
      const current = client;
      client = undefined;
      current?.removeAllListeners("end");
      await current?.end().catch(() => undefined);
    },
  };
}
