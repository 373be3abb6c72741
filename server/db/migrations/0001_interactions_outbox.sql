CREATE TABLE "interactions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"run_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"pause_reason" text,
	"policy" text NOT NULL,
	"tool_call_id" text,
	"tool_name" text,
	"tool_args" jsonb,
	"message" text,
	"status" text NOT NULL,
	"instance_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decision" jsonb,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "interactions_kind_check" CHECK ("interactions"."kind" in ('approval', 'private_input', 'oauth', 'a2a', 'operator', 'client_tool', 'external_wait')),
	CONSTRAINT "interactions_reason_check" CHECK ("interactions"."pause_reason" is null or "interactions"."pause_reason" in ('hitl', 'oauth', 'a2a', 'operator')),
	CONSTRAINT "interactions_status_check" CHECK ("interactions"."status" in ('pending', 'resolved', 'rejected', 'expired', 'cancelled', 'lost')),
	CONSTRAINT "interactions_policy_check" CHECK ("interactions"."policy" in ('owner', 'approvers'))
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"run_id" text NOT NULL,
	"tool_call_id" text NOT NULL,
	"kind" text NOT NULL,
	"details" jsonb NOT NULL,
	"approved_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outbox_kind_check" CHECK ("outbox"."kind" in ('email', 'transfer'))
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "tool_calls" jsonb;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "tool_call_id" text;--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "interactions_thread_pending_idx" ON "interactions" USING btree ("thread_id") WHERE "interactions"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "interactions_tenant_idx" ON "interactions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "interactions_run_idx" ON "interactions" USING btree ("run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "outbox_tool_call_unique" ON "outbox" USING btree ("run_id","tool_call_id");--> statement-breakpoint
CREATE INDEX "outbox_user_idx" ON "outbox" USING btree ("tenant_id","user_id","created_at");