-- The rows a statement writes, from its one JSON parameter (queries/json-rows.ts): the array's
-- elements, estimated at 10 as an unnest of an array parameter is. jsonb_array_elements and
-- jsonb_to_recordset are estimated at 100 rows, and with the one plan a prepared statement keeps,
-- that turned lookups by key into full scans of runs and interactions once those held a few
-- thousand rows. STRICT also keeps it from being inlined (PostgreSQL inlines no strict
-- set-returning SQL function), so its own estimate is the one the planner uses.
CREATE OR REPLACE FUNCTION "harbor_rows"("rows" jsonb) RETURNS SETOF jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE ROWS 10 AS $$
  SELECT jsonb_array_elements("rows")
$$;
