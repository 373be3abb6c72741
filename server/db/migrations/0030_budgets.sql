-- Model token budgets (README "Operating Harbor"): a tenant's own limits, and the tokens models reported per user and day.
ALTER TABLE "tenant_policies" ADD COLUMN "tenant_daily_tokens" bigint;--> statement-breakpoint
ALTER TABLE "tenant_policies" ADD COLUMN "tenant_monthly_tokens" bigint;--> statement-breakpoint
ALTER TABLE "tenant_policies" ADD COLUMN "user_daily_tokens" bigint;--> statement-breakpoint
ALTER TABLE "tenant_policies" ADD COLUMN "user_monthly_tokens" bigint;--> statement-breakpoint
ALTER TABLE "tenant_policies" ADD CONSTRAINT "tenant_policies_budgets_check" CHECK (coalesce("tenant_daily_tokens", 0) >= 0 and coalesce("tenant_monthly_tokens", 0) >= 0 and coalesce("user_daily_tokens", 0) >= 0 and coalesce("user_monthly_tokens", 0) >= 0);--> statement-breakpoint
CREATE TABLE "model_usage" (
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"day" date NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "model_usage_pk" PRIMARY KEY ("tenant_id", "user_id", "day")
);
--> statement-breakpoint
ALTER TABLE "model_usage" ADD CONSTRAINT "model_usage_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "model_usage_tenant_day_idx" ON "model_usage" USING btree ("tenant_id","day");
