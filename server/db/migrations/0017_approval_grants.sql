CREATE TABLE "approval_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"thread_id" text,
	"scope" text NOT NULL,
	"agent_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"tool_version" text NOT NULL,
	"bounds" jsonb NOT NULL,
	"interaction_id" text NOT NULL,
	"granted_by" text NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	CONSTRAINT "approval_grants_scope_check" CHECK ("approval_grants"."scope" in ('thread', 'hours'))
);
--> statement-breakpoint
ALTER TABLE "approval_grants" ADD CONSTRAINT "approval_grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approval_grants_live_idx" ON "approval_grants" USING btree ("tenant_id","owner_id","tool_name") WHERE "approval_grants"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "approval_grants_tenant_idx" ON "approval_grants" USING btree ("tenant_id","created_at");