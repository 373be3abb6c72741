-- Whether another run of a thread executes or waits in the cluster, as committed now rather than as
-- the calling statement's snapshot saw it. A run's first write calls it after it has locked the
-- thread's row (its insert or update of `threads`), so of two instances beginning runs on one thread
-- at once, the second waits for the first to commit and then sees its run: the statement settles the
-- race by itself, and the run needs no second look after it commits.
-- PL/pgSQL and VOLATILE on purpose: each query in a volatile function takes a fresh snapshot (under
-- READ COMMITTED), and a PL/pgSQL function is never inlined into the caller's snapshot.
CREATE OR REPLACE FUNCTION "harbor_thread_busy"(thread text, run text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM "runs" r WHERE r."thread_id" = thread AND r."id" <> run AND r."status" IN ('queued', 'running')
  );
END;
$$;
