-- The rows parameter of a statement (queries/json-rows.ts): one jsonb array, planned as 10 rows.
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "harbor_rows"("rows" jsonb) RETURNS SETOF jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE ROWS 10 AS $$
  SELECT jsonb_array_elements("rows")
$$;
