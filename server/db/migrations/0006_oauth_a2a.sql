ALTER TABLE "credentials" ADD COLUMN "kind" text DEFAULT 'api_key' NOT NULL;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "scopes" text;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "detail" jsonb;--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_kind_check" CHECK ("credentials"."kind" in ('api_key', 'oauth'));