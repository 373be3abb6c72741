-- The console's run list (issue 35): a tenant's newest runs by an index, and each run's own input by its run.
CREATE INDEX IF NOT EXISTS "runs_tenant_created_idx" ON "runs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_run_user_idx" ON "messages" USING btree ("run_id","position") WHERE "messages"."role" = 'user';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_thread_position_idx" ON "messages" USING btree ("thread_id","position");
