-- Triggers that act only sometimes say when in their WHEN clause, so the database skips calling their function
-- (PL/pgSQL, dear on the embedded database) for the rows and statements they would return from at once:
-- a snapshot's state is stored by reference only for snapshots, and the cluster is notified only by Harbor's
-- named connections (harbor_notify_changes returns at once for any other). What each does is unchanged.
DROP TRIGGER "run_events_snapshot_state" ON "run_events";--> statement-breakpoint
CREATE TRIGGER "run_events_snapshot_state" BEFORE INSERT ON "run_events" FOR EACH ROW WHEN (NEW."type" = 'snapshot') EXECUTE FUNCTION "harbor_snapshot_state_by_reference"();--> statement-breakpoint
DROP TRIGGER "run_events_notify" ON "run_events";--> statement-breakpoint
CREATE TRIGGER "run_events_notify" AFTER INSERT ON "run_events" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT WHEN (current_setting('application_name', true) LIKE 'harbor:%') EXECUTE FUNCTION harbor_notify_changes();--> statement-breakpoint
DROP TRIGGER "interactions_insert_notify" ON "interactions";--> statement-breakpoint
CREATE TRIGGER "interactions_insert_notify" AFTER INSERT ON "interactions" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT WHEN (current_setting('application_name', true) LIKE 'harbor:%') EXECUTE FUNCTION harbor_notify_changes();--> statement-breakpoint
DROP TRIGGER "interactions_update_notify" ON "interactions";--> statement-breakpoint
CREATE TRIGGER "interactions_update_notify" AFTER UPDATE ON "interactions" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT WHEN (current_setting('application_name', true) LIKE 'harbor:%') EXECUTE FUNCTION harbor_notify_changes();
