-- What the other runs of a thread are doing (the distinct statuses among its queued, running and
-- paused runs), as committed now rather than as the calling statement's snapshot saw it. A run's
-- first write calls it after it has locked the thread's row (its insert or update of `threads`),
-- so of two instances beginning runs on one thread at once, the second waits for the first to
-- commit and then sees its run: the statement settles the race by itself, and the run needs no
-- second look after it commits.
-- PL/pgSQL and VOLATILE on purpose: each query in a volatile function takes a fresh snapshot (under
-- READ COMMITTED), and a PL/pgSQL function is never inlined into the caller's snapshot.
CREATE OR REPLACE FUNCTION "harbor_thread_activity"(thread text, run text) RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN ARRAY(
    SELECT DISTINCT r."status"::text FROM "runs" r
    WHERE r."thread_id" = thread AND r."id" <> run AND r."status" IN ('queued', 'running', 'paused')
  );
END;
$$;
