-- The fair claim of due webhook deliveries (queries/webhooks.ts, claimDueDeliveries) walks the
-- tenants and webhooks with pending deliveries, each webhook's oldest due ones, and the deliveries
-- in flight: each by an index, so one tenant's large backlog costs the others nothing.
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("tenant_id", "webhook_id", "next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_leased_idx" ON "webhook_deliveries" USING btree ("lease_until") WHERE "webhook_deliveries"."status" = 'pending' AND "webhook_deliveries"."lease_until" IS NOT NULL;
