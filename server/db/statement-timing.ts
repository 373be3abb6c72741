/**
 * Every statement's latency, as the server sees it (queueing for a connection or the embedded
 * database's thread included), into `harbor_db_statement_seconds`. node-postgres calls a client's
 * `query` with a callback (the pool does) or for a promise; both are timed.
 */
import { performance } from "node:perf_hooks";
import type pg from "pg";
import { telemetry } from "@/server/telemetry";

type AnyQuery = (this: unknown, ...args: unknown[]) => unknown;

function timed(query: AnyQuery, engine: "pglite" | "postgres"): AnyQuery {
  return function (this: unknown, ...args: unknown[]) {
    if (!telemetry.timingStatements()) return query.apply(this, args);
    const started = performance.now();
    const observe = () => telemetry.statement(engine, performance.now() - started);
    const last = args.at(-1);
    if (typeof last === "function") {
      args[args.length - 1] = (...results: unknown[]) => {
        observe();
        return (last as (...r: unknown[]) => unknown)(...results);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args);
    if (result instanceof Promise) result.then(observe, observe);
    return result;
  };
}

/** Times the statements of every connection the pool opens. */
export function timePostgresStatements(pool: pg.Pool): void {
  pool.on("connect", (client) => {
    client.query = timed(client.query as AnyQuery, "postgres") as typeof client.query;
  });
}

/** Times a PGlite-shaped client's statements (the embedded database on its thread). */
export function timedPgliteQuery<A extends unknown[], R>(query: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) => {
    if (!telemetry.timingStatements()) return query(...args);
    const started = performance.now();
    const observe = () => telemetry.statement("pglite", performance.now() - started);
    const result = query(...args);
    result.then(observe, observe);
    return result;
  };
}
