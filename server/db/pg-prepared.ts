/**
 * Prepared statements on PostgreSQL: each parameterised statement Drizzle sends through the pool
 * gets a name derived from its text, so every connection parses and plans it once and then only
 * binds and executes it (node-postgres keeps a connection's named statements). Harbor's hot
 * statements have a fixed text whatever they write (their rows travel in one JSON parameter, see
 * queries/json-rows.ts), so a few hundred names cover them; past that, they are sent unnamed.
 */
import type pg from "pg";

/** Distinct statement texts that get a name; each connection holds at most this many. */
const MAX_NAMED = 256;
/** SQLSTATE 0A000: a prepared statement whose result type changed under it (a migration ran). */
const FEATURE_NOT_SUPPORTED = "0A000";

type Query = (...args: unknown[]) => Promise<pg.QueryResult>;

/** Drizzle's call: a config object without a name, and its parameters. */
const isDrizzleCall = (args: unknown[]): args is [pg.QueryConfig, unknown[]] =>
  args.length === 2 &&
  typeof args[0] === "object" &&
  args[0] !== null &&
  !(args[0] as pg.QueryConfig).name &&
  Array.isArray(args[1]) &&
  args[1].length > 0;

export function namePreparedStatements(pool: pg.Pool): void {
  const names = new Map<string, string>();
  const unnamed = pool.query.bind(pool) as unknown as Query;
  const nameOf = (text: string): string | undefined => {
    // An empty name: a text that once failed named, sent unnamed for good.
    if (names.has(text)) return names.get(text) || undefined;
    if (names.size >= MAX_NAMED) return undefined;
    const name = `harbor_${names.size + 1}`;
    names.set(text, name);
    return name;
  };
  const named: Query = async (...args) => {
    // Anything else (a callback, a text, a named statement) goes through as it came.
    if (!isDrizzleCall(args)) return unnamed(...args);
    const [config, values] = args;
    const name = nameOf(config.text);
    if (!name) return unnamed(config, values);
    try {
      return await unnamed({ ...config, name }, values);
    } catch (error) {
      // Planned before the tables changed shape: this text goes unnamed from now on.
      if ((error as { code?: string }).code !== FEATURE_NOT_SUPPORTED) throw error;
      names.set(config.text, "");
      return unnamed(config, values);
    }
  };
  (pool as unknown as { query: Query }).query = named;
}
