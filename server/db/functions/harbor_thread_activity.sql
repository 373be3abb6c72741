-- What the other runs of a thread are doing, read once the thread's row is locked.
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "harbor_thread_activity"(thread text, run text) RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN ARRAY(
    SELECT DISTINCT r."status"::text FROM "runs" r
    WHERE r."thread_id" = thread AND r."id" <> run AND r."status" IN ('queued', 'running', 'paused')
  );
END;
$$;
