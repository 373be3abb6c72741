import type { PGlite } from "@electric-sql/pglite";

/** Makes `pg.query` use named prepared statements for statements with parameters (see pglite-prepared.mjs). */
export function usePreparedStatements(pg: PGlite, onePlan?: boolean): void;

/** `plan_cache_mode` for prepared statements: one plan each (see pglite-prepared.mjs). */
export const PLAN_CACHE_MODE: string;
