/**
 * The embedded database on its own thread (`HARBOR_PGLITE_THREAD`): a PGlite-shaped client whose
 * queries run in a `worker_threads` worker holding the real PGlite, so its WASM work and the
 * server's request handling and SSE encoding use both cores. Drizzle drives it like PGlite.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";

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

export class ThreadedPglite {
  private readonly worker: Worker;
  private next = 1;
  private transactions = 0;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly ready: Promise<void>;

  constructor(options: { dataDir?: string; loadDataDir?: Blob; prepared: boolean; onePlan: boolean }) {
    this.worker = new Worker(path.join(process.cwd(), "server/db/pglite-thread.mjs"), { workerData: options });
    this.ready = new Promise((resolve, reject) => {
      const first = (message: { ready?: boolean }) => {
        if (message.ready) {
          this.worker.off("message", first);
          this.worker.on("message", (reply: Reply) => this.settle(reply));
          resolve();
        }
      };
      this.worker.on("message", first);
      this.worker.once("error", reject);
    });
    // A thread that died answers nothing more: every waiting and later query fails loudly instead of hanging.
    const fail = (error: Error) => {
      this.dead ??= error;
      for (const pending of this.waiting.values()) pending.reject(error);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the embedded database's thread exited (${code})`)));
  }

  private dead: Error | undefined;

  private settle(reply: Reply) {
    const pending = this.waiting.get(reply.id);
    if (!pending) return;
    this.waiting.delete(reply.id);
    if (reply.error)
      pending.reject(new ThreadDatabaseError(reply.error.message, reply.error.code, reply.error.detail, reply.error.constraint));
    else pending.resolve(reply.result);
  }

  private call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private send(sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number): Promise<Results> {
    return this.call<Results>({
      type: "query",
      sql,
      params: params ?? [],
      rowMode: options?.rowMode ?? "object",
      identityOids: Object.keys(options?.parsers ?? {}).map(Number),
      tx,
    });
  }

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
    await this.call({ type: "close" });
    await this.worker.terminate();
  }
}
