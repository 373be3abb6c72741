CREATE TABLE "decision_link_uses" (
	"jti" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"interaction_id" text NOT NULL,
	"user_id" text NOT NULL,
	"decision" text NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "decision_link_uses_decision_check" CHECK ("decision_link_uses"."decision" in ('approve', 'reject'))
);
--> statement-breakpoint
ALTER TABLE "decision_link_uses" ADD CONSTRAINT "decision_link_uses_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decision_link_uses" ADD CONSTRAINT "decision_link_uses_interaction_id_interactions_id_fk" FOREIGN KEY ("interaction_id") REFERENCES "public"."interactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "decision_link_uses_interaction_idx" ON "decision_link_uses" USING btree ("interaction_id");