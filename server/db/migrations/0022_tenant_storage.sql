-- What each tenant stores (bytes of its runs' events, messages, snapshot states and thread states),
-- as last measured (queries/storage.ts). A run of a tenant over its quota is refused at its first
-- statement; the measure is refreshed every few minutes, so the quota is a bound within that.
CREATE TABLE "tenant_storage" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"bytes" bigint NOT NULL,
	"measured_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tenant_storage" ADD CONSTRAINT "tenant_storage_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
