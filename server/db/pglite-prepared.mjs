// Prepared statements for PGlite. Its `query` parses, plans and describes every statement anew
// with the unnamed statement; for Harbor's hot statements (CTEs over their rows' parameters) that is most of the
// cost — measured 4.4 ms of planning against 0.55 ms of execution for a run's first write. Here
// each parameterised statement is parsed once under a name, its parameter types kept, and then
// only bound and executed, so PostgreSQL reuses its plan. The rest of PGlite's `query` is kept:
// its locks, serializers, parsers, error type and sync to the filesystem. Plain JavaScript, so the
// embedded database's own thread (pglite-thread.mjs) uses it as it is.
import { parse, protocol } from "@electric-sql/pglite";

/**
 * Each prepared statement keeps one plan, made once (a generic plan). Left to choose, PostgreSQL
 * plans Harbor's statements anew on every execution: it estimates the rows a parameter holds
 * (an `unnest`, a `jsonb_to_recordset`) at a fixed count, so the generic plan looks dearer than a
 * custom one that sees the real parameter — measured (with array parameters) 3.8 → 2.1 ms for an answer's claim, 3.2 → 1.3 ms for a run's first write.
 * Harbor's statements find their rows by key, so one plan fits every execution.
 */
export const PLAN_CACHE_MODE = "force_generic_plan";

/** Statements kept prepared on the connection at once (the oldest is closed past this). */
const MAX_PREPARED = 256;

/** Makes `pg.query` use named prepared statements for statements with parameters (`onePlan`: see PLAN_CACHE_MODE). */
export function usePreparedStatements(pg, onePlan = true) {
  const unprepared = pg.query.bind(pg);
  /** By statement text: `{ name, paramTypes }`, least recently used first. */
  const prepared = new Map();
  let counter = 0;
  const send = (message) => pg.execProtocolStream(message, { syncToFs: false });
  const planOnce = onePlan ? pg.exec(`set plan_cache_mode = ${PLAN_CACHE_MODE}`) : Promise.resolve();
  planOnce.catch(() => {}); // its failure is told to the first statement, not left unhandled

  async function prepare(text) {
    const name = `harbor_${(++counter).toString(36)}`;
    const messages = [];
    try {
      messages.push(...(await send(protocol.serialize.parse({ name, text }))));
      messages.push(...(await send(protocol.serialize.describe({ type: "S", name }))));
    } finally {
      await send(protocol.serialize.sync());
    }
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    prepared.set(text, statement);
    if (prepared.size > MAX_PREPARED) {
      const [oldestKey, oldest] = prepared.entries().next().value;
      prepared.delete(oldestKey);
      try {
        await send(protocol.serialize.close({ type: "S", name: oldest.name }));
      } finally {
        await send(protocol.serialize.sync());
      }
    }
    return statement;
  }

  /**
   * PGlite's parsers with a statement's own on top (Drizzle sends a few for dates and arrays), as a
   * child of PGlite's map: given both, `parseResults` copies all of PGlite's ~300 entries into
   * a new object for every statement — measured at 0.24 ms each on the embedded database's thread,
   * a tenth of a gate cycle — where this looks them up through the prototype.
   */
  const parsersWith = (own) => (own ? Object.assign(Object.create(pg.parsers), own) : pg.parsers);

  async function run(text, params, options) {
    await planOnce;
    await pg._checkReady();
    // The locks `query` takes, in its order: outside any transaction, then alone on the connection.
    return pg._runExclusiveTransaction(() =>
      pg.runExclusive(async () => {
        let statement = prepared.get(text);
        if (statement) {
          // Least recently used is closed first: a hit moves to the end.
          prepared.delete(text);
          prepared.set(text, statement);
        } else statement = await prepare(text);
        const values = params.map((value, index) => {
          if (value === null || value === undefined) return null;
          const type = statement.paramTypes[index];
          const serialize = options?.serializers?.[type] ?? pg.serializers[type];
          return serialize ? serialize(value) : String(value);
        });
        const results = [];
        try {
          results.push(...(await send(protocol.serialize.bind({ statement: statement.name, values }))));
          results.push(...(await send(protocol.serialize.describe({ type: "P" }))));
          results.push(...(await send(protocol.serialize.execute({}))));
        } catch (error) {
          // A statement gone or outdated underneath (closed, or a table changed): prepare it again next time.
          if (["26000", "0A000"].includes(error?.code)) prepared.delete(text);
          throw error;
        } finally {
          results.push(...(await send(protocol.serialize.sync())));
        }
        await pg.syncToFs();
        const { parsers, ...rest } = options ?? {};
        return parse.parseResults(results, parsersWith(parsers), rest)[0];
      }),
    );
  }

  pg.query = (text, params, options) =>
    params && params.length > 0 && !options?.blob && !options?.paramTypes ? run(text, params, options) : unprepared(text, params, options);
}
