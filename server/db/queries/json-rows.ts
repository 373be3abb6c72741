import { sql, type SQL } from "drizzle-orm";

/**
 * The rows a statement writes, as one JSON parameter of an array of objects: `columns` is their
 * column definition list, and each row's keys name those columns (a missing key reads null).
 *
 * Why not one array parameter per column: both drivers turn an array into its literal in
 * JavaScript, escaping every element with two regular-expression replaces — a JSON value twice
 * over, once by JSON.stringify and once into the literal. Under load that was the largest source
 * of garbage on the server (a fifth of all bytes allocated by a chat turn). One JSON.stringify of
 * the rows is native and builds the text once. The statement's text stays the same however many
 * rows it writes, so it stays prepared.
 */
export function jsonRows(rows: readonly object[], alias: string, columns: string): SQL {
  const name = sql.raw(alias);
  // harbor_rows (migration 0020), not jsonb_to_recordset: the planner reckons with 10 rows, not 100.
  return sql`(select ${name}.* from harbor_rows(${JSON.stringify(rows)}::jsonb) as element,
    jsonb_to_record(element) as ${name}(${sql.raw(columns)})) as ${name}`;
}
