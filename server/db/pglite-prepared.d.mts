import type { PGlite } from "@electric-sql/pglite";

/** Makes `pg.query` use named prepared statements for statements with parameters (see pglite-prepared.mjs). */
export function usePreparedStatements(pg: PGlite): void;
