-- Stored shapes are versioned (server/db/codecs). Objects with fixed fields carry their version in
-- the value; free-form records (a tool's arguments, a grant's bounds, an outbox record's details, a
-- webhook's payload, whose keys are not Harbor's to choose) carry it in a column beside them. Every
-- row written before this migration is version 1.
ALTER TABLE "approval_grants" ADD COLUMN "bounds_version" smallint DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "version" smallint DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "details_version" smallint DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "payload_version" smallint DEFAULT 1 NOT NULL;
