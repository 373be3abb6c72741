CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopping_at" timestamp with time zone,
	"reclaimed_by" text,
	"reclaimed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "routed_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"target_instance" text NOT NULL,
	"from_instance" text NOT NULL,
	"sealed" text NOT NULL,
	"reply" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "instance_id" text;--> statement-breakpoint
CREATE INDEX "runs_instance_status_idx" ON "runs" USING btree ("instance_id","status");--> statement-breakpoint
-- Live feeds across instances: a statement that adds run events or changes interactions tells every
-- listening instance which runs and interactions changed (ids only: data is read from the tables).
-- Only Harbor's PostgreSQL connections (application_name 'harbor:<instance id>') notify, and the
-- payload names the instance that wrote, so it can ignore its own.
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
--> statement-breakpoint
CREATE TRIGGER run_events_notify AFTER INSERT ON run_events REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION harbor_notify_changes();
--> statement-breakpoint
CREATE TRIGGER interactions_insert_notify AFTER INSERT ON interactions REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION harbor_notify_changes();
--> statement-breakpoint
CREATE TRIGGER interactions_update_notify AFTER UPDATE ON interactions REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION harbor_notify_changes();
