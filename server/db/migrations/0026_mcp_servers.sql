-- Written to apply twice harmlessly: this migration's first timestamp was older than 0025's, so a
-- database migrated between the two never got it; its timestamp now follows 0025's, and a database
-- that did get it runs it again without effect.
CREATE TABLE IF NOT EXISTS "mcp_servers" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"headers_sealed" text,
	"catalog" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" DROP CONSTRAINT IF EXISTS "mcp_servers_tenant_id_tenants_id_fk";--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "mcp_servers_tenant_name_idx" ON "mcp_servers" USING btree ("tenant_id","name");--> statement-breakpoint
ALTER TABLE "interactions" DROP CONSTRAINT IF EXISTS "interactions_kind_check";--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_kind_check" CHECK ("interactions"."kind" in ('approval', 'private_input', 'oauth', 'a2a', 'operator', 'client_tool', 'external_wait', 'mcp_input'));
