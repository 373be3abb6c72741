/**
 * The embedded database on its own thread (`HARBOR_PGLITE_THREAD`): a PGlite-shaped client whose
 * queries run in a `worker_threads` worker holding the real PGlite, so its WASM work and the
 * server's request handling and SSE encoding use both cores. Drizzle drives it like PGlite.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";
import { timedPgliteQuery } from "./statement-timing";

interface QueryOptions {
  rowMode?: "array" | "object";
  /** Drizzle's parsers are identities for a few type oids (timestamps and arrays kept as text). */
  parsers?: Record<number, unknown>;
}
interface Results {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}
type Reply = { id: number; result?: unknown; error?: { message: string; code?: string; detail?: string; constraint?: string } };

/** An error as PostgreSQL reports it, with its SQLSTATE code (callers match on it). */
class ThreadDatabaseError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly detail?: string,
    readonly constraint?: string,
  ) {
    super(message);
  }
}

/** How many times a thread that died is started again within RESTART_WINDOW_MS before the database is given up. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

type ThreadOptions = { dataDir?: string; loadDataDir?: Blob; prepared: boolean; onePlan: boolean };

/** Whether the database's thread answers: up, being started again after it died, or given up. */
export type ThreadState = "up" | "restarting" | "dead";

export class ThreadedPglite {
  protected worker!: Worker;
  private next = 1;
  private transactions = 0;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** The first start; later starts (after the thread died) replace `starting`. */
  readonly ready: Promise<void>;
  private starting: Promise<void>;
  private dead: Error | undefined;
  private closing = false;
  /** The current thread said it is ready, and has not died since. */
  private up = false;
  private restarts: number[] = [];

  constructor(private readonly options: ThreadOptions) {
    this.ready = this.starting = this.spawn();
  }

  /** Up, restarting after its thread died, or dead (it died too often, or holds an in-memory database that a restart would lose). */
  state(): ThreadState {
    if (this.dead) return "dead";
    return this.up ? "up" : "restarting";
  }

  private spawn(): Promise<void> {
    const worker = new Worker(path.join(process.cwd(), "server/db/pglite-thread.mjs"), { workerData: this.options });
    this.worker = worker;
    const started = new Promise<void>((resolve, reject) => {
      const first = (message: { ready?: boolean }) => {
        if (!message.ready) return;
        worker.off("message", first);
        worker.on("message", (reply: Reply) => this.settle(reply));
        this.up = true;
        resolve();
      };
      worker.on("message", first);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the embedded database's thread exited while starting (${code})`)));
    });
    // A thread that died answers nothing more: what waited on it fails loudly instead of hanging.
    worker.on("error", (error) => this.died(worker, error));
    worker.on("exit", (code) => this.died(worker, new Error(`the embedded database's thread exited (${code})`)));
    return started;
  }

  /**
   * The thread died (a crash in the database engine, an out-of-memory abort): its queries and open
   * transactions fail, and a thread is started again on the same folder — PostgreSQL's recovery
   * replays what was committed. In memory there is nothing to recover, and a thread that keeps
   * dying is given up: the process then reports it is not ready.
   */
  private died(worker: Worker, error: Error): void {
    if (worker !== this.worker) return;
    const wasUp = this.up;
    this.up = false;
    for (const pending of this.waiting.values()) pending.reject(error);
    this.waiting.clear();
    if (this.closing || this.dead) return;
    // A thread that never started is not started again: its start's own error is the answer.
    if (!wasUp) {
      this.dead = error;
      return;
    }
    const now = Date.now();
    this.restarts = [...this.restarts.filter((at) => now - at < RESTART_WINDOW_MS), now];
    if (!this.options.dataDir || this.restarts.length > MAX_RESTARTS) {
      this.dead = error;
      return;
    }
    const restarting = this.spawn();
    this.starting = restarting;
    restarting.catch((failure: unknown) => (this.dead ??= failure instanceof Error ? failure : error));
  }

  private settle(reply: Reply) {
    const pending = this.waiting.get(reply.id);
    if (!pending) return;
    this.waiting.delete(reply.id);
    if (reply.error)
      pending.reject(new ThreadDatabaseError(reply.error.message, reply.error.code, reply.error.detail, reply.error.constraint));
    else pending.resolve(reply.result);
  }

  private async call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.dead) throw this.dead;
    // A thread being started again is waited for; one that died and failed to start fails the call.
    await this.starting;
    if (this.dead) throw this.dead;
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private readonly send = timedPgliteQuery((sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number) =>
    this.call<Results>({
      type: "query",
      sql,
      params: params ?? [],
      rowMode: options?.rowMode ?? "object",
      identityOids: Object.keys(options?.parsers ?? {}).map(Number),
      tx,
    }),
  );

  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results> {
    return this.send(sql, params, options);
  }

  async transaction<T>(callback: (tx: { query: ThreadedPglite["query"] }) => Promise<T>): Promise<T> {
    const tx = ++this.transactions;
    await this.call({ type: "begin", tx });
    try {
      const result = await callback({ query: (sql, params, options) => this.send(sql, params, options, tx) });
      await this.call({ type: "commit", tx });
      return result;
    } catch (error) {
      await this.call({ type: "rollback", tx });
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.dead) return;
    await this.call({ type: "close" });
    await this.worker.terminate();
  }
}
