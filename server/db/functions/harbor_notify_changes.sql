-- Wakes the instances' live feeds: NOTIFY with the origin instance and the changed runs or interactions.
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
CREATE FUNCTION harbor_notify_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  origin text := current_setting('application_name', true);
BEGIN
  IF origin IS NULL OR origin NOT LIKE 'harbor:%' THEN
    RETURN NULL;
  END IF;
  origin := substr(origin, 8);
  IF TG_TABLE_NAME = 'run_events' THEN
    PERFORM pg_notify('harbor_run_events', origin || '|' || r.run_id) FROM (SELECT DISTINCT run_id FROM changed) r;
  ELSE
    PERFORM pg_notify('harbor_interactions', origin || '|' || c.id) FROM changed c;
  END IF;
  RETURN NULL;
END $$;
