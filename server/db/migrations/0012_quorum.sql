ALTER TABLE "interactions" ADD COLUMN "quorum" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "votes" jsonb DEFAULT '[]'::jsonb NOT NULL;