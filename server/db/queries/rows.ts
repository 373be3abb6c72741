/**
 * Rows of statements written by hand, parsed by a schema of one row at the one place the statement
 * lives: never cast. Both drivers answer `{ rows }`; a row that does not match is a fault of this
 * code or the schema under it, and fails loudly with the column that differs.
 */
import { z } from "zod";

const Result = z.looseObject({ rows: z.array(z.unknown()) });

/** How many rows a statement answered (a `returning` that says whether anything changed). */
export const rowCount = (result: unknown): number => Result.parse(result).rows.length;

/** The rows a statement answered, each parsed by `row`. */
export function rowsOf<T>(result: unknown, row: z.ZodType<T>): T[] {
  return Result.parse(result).rows.map((value, index) => {
    const parsed = row.safeParse(value);
    if (!parsed.success) throw new Error(`Row ${index} of a statement does not match its schema: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  });
}

/** Column types as the drivers answer them. */
export const column = {
  /** A timestamp: a Date from node-postgres, text from PGlite in some positions. */
  date: z.union([z.date(), z.string()]).transform((value) => new Date(value)),
  /** A bigint or a count: text from node-postgres, a number from PGlite. */
  number: z.union([z.number(), z.string()]).transform(Number),
  /** jsonb: parsed by both drivers; its shape is its codec's or its caller's to check. */
  json: z.unknown(),
};

/** A quorum gate's vote as stored (interactions.votes). */
export const voteSchema = z.object({ by: z.string(), approved: z.boolean(), reason: z.string().optional(), at: z.string() });
