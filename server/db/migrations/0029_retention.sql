-- Retention (README "Operating Harbor"): per-tenant policies, the audit's anchors, and the sweep's lease.
CREATE TABLE "tenant_policies" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"conversation_retention_days" integer,
	"audit_retention_days" integer,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_policies_conversation_days_check" CHECK ("conversation_retention_days" is null or "conversation_retention_days" between 0 and 36500),
	CONSTRAINT "tenant_policies_audit_days_check" CHECK ("audit_retention_days" is null or "audit_retention_days" between 0 and 36500)
);
--> statement-breakpoint
ALTER TABLE "tenant_policies" ADD CONSTRAINT "tenant_policies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "audit_anchors" (
	"tenant_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"removed" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_anchors_pk" PRIMARY KEY ("tenant_id", "seq")
);
--> statement-breakpoint
ALTER TABLE "audit_anchors" ADD CONSTRAINT "audit_anchors_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "maintenance" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_result" jsonb
);
--> statement-breakpoint
CREATE INDEX "threads_tenant_updated_idx" ON "threads" USING btree ("tenant_id","updated_at");--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM tenants WHERE id = OLD.tenant_id) THEN
    RETURN OLD;
  END IF;
  IF TG_OP = 'DELETE' AND current_setting('harbor.audit_retention', true) = 'on'
     AND EXISTS (SELECT 1 FROM audit_anchors WHERE tenant_id = OLD.tenant_id AND seq >= OLD.seq) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'P0001';
END
$$;
