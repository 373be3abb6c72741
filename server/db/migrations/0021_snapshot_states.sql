-- A snapshot's state, stored once per thread and content. A run's last event is a snapshot of its
-- thread's shared state; a client that keeps a large state (say 800 KB) and sends a short message
-- each turn stored the whole state again with every run. A large state now goes into
-- snapshot_states once (keyed by its thread and an md5 of its jsonb text) and the event keeps only
-- `stateHash`; reading the log puts the state back (queries/event-storage.ts). Small states stay
-- in the event, where a second row would cost more than it saves.
CREATE TABLE "snapshot_states" (
	"thread_id" text NOT NULL,
	"hash" text NOT NULL,
	"state" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "snapshot_states_pkey" PRIMARY KEY ("thread_id", "hash")
);
--> statement-breakpoint
ALTER TABLE "snapshot_states" ADD CONSTRAINT "snapshot_states_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
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
--> statement-breakpoint
CREATE TRIGGER "run_events_snapshot_state" BEFORE INSERT ON "run_events" FOR EACH ROW EXECUTE FUNCTION "harbor_snapshot_state_by_reference"();
