-- Stores a snapshot's large state once per thread and content; the event keeps its hash.
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "harbor_snapshot_state_by_reference"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	state_text text;
	state_hash text;
	thread text;
BEGIN
	IF NEW.type <> 'snapshot' OR NOT (NEW.data ? 'state') THEN
		RETURN NEW;
	END IF;
	state_text := (NEW.data -> 'state')::text;
	IF length(state_text) < 1024 THEN
		RETURN NEW;
	END IF;
	SELECT r.thread_id INTO thread FROM runs r WHERE r.id = NEW.run_id;
	IF thread IS NULL THEN
		RETURN NEW;
	END IF;
	state_hash := md5(state_text);
	INSERT INTO snapshot_states (thread_id, hash, state) VALUES (thread, state_hash, NEW.data -> 'state')
		ON CONFLICT (thread_id, hash) DO NOTHING;
	NEW.data := (NEW.data - 'state') || jsonb_build_object('stateHash', state_hash);
	RETURN NEW;
END $$;
