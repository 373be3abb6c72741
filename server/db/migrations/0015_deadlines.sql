ALTER TABLE "interactions" ADD COLUMN "remind_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "reminded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "escalate_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "escalate_to" text;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "escalated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "interactions" ADD COLUMN "on_expiry" text DEFAULT 'reject' NOT NULL;--> statement-breakpoint
CREATE INDEX "interactions_remind_due_idx" ON "interactions" USING btree ("remind_at") WHERE "interactions"."status" = 'pending' and "interactions"."reminded_at" is null;--> statement-breakpoint
CREATE INDEX "interactions_escalate_due_idx" ON "interactions" USING btree ("escalate_at") WHERE "interactions"."status" = 'pending' and "interactions"."escalated_at" is null;--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_escalate_to_check" CHECK ("interactions"."escalate_to" is null or "interactions"."escalate_to" in ('approvers', 'admins'));--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_on_expiry_check" CHECK ("interactions"."on_expiry" in ('reject', 'cancel'));--> statement-breakpoint
-- Deadlines tell webhooks too: a reminder sent (`reminded_at` set) is `pause.reminder`, an
-- escalation (`escalated_at` set) is `pause.escalated`; the payload says until when and to whom.
-- An expiry names the safe default that was applied.
CREATE OR REPLACE FUNCTION "harbor_webhook_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ev text;
  body jsonb;
BEGIN
  IF NEW.pause_reason IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'pending' THEN
      RETURN NULL;
    END IF;
    ev := 'pause.requested';
  ELSIF OLD.status = 'pending' AND NEW.status IN ('resolved', 'rejected', 'cancelled') THEN
    ev := 'pause.resolved';
  ELSIF OLD.status = 'pending' AND NEW.status IN ('expired', 'lost') THEN
    ev := 'pause.expired';
  ELSIF NEW.status = 'pending' AND OLD.escalated_at IS NULL AND NEW.escalated_at IS NOT NULL THEN
    ev := 'pause.escalated';
  ELSIF NEW.status = 'pending' AND OLD.reminded_at IS NULL AND NEW.reminded_at IS NOT NULL THEN
    ev := 'pause.reminder';
  ELSE
    RETURN NULL;
  END IF;
  body := jsonb_build_object(
    'type', ev,
    'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', jsonb_strip_nulls(jsonb_build_object(
      'interactionId', NEW.id,
      'runId', NEW.run_id,
      'threadId', NEW.thread_id,
      'kind', NEW.kind,
      'reason', NEW.pause_reason,
      'policy', NEW.policy,
      'status', NEW.status,
      'toolName', NEW.tool_name,
      'expiresAt', to_char(NEW.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'resolvedAt', to_char(NEW.resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'escalatedTo', CASE WHEN NEW.escalated_at IS NOT NULL THEN NEW.escalate_to END,
      'onExpiry', CASE WHEN ev = 'pause.expired' AND NEW.status = 'expired' THEN NEW.on_expiry END
    ))
  );
  INSERT INTO "webhook_deliveries" ("id", "webhook_id", "tenant_id", "event", "payload")
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w."id", w."tenant_id", ev, body
    FROM "webhooks" w
    WHERE w."tenant_id" = NEW.tenant_id AND ev = ANY (w."events");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "interactions_webhook_deadline" AFTER UPDATE OF "reminded_at", "escalated_at" ON "interactions"
  FOR EACH ROW WHEN (OLD."reminded_at" IS DISTINCT FROM NEW."reminded_at" OR OLD."escalated_at" IS DISTINCT FROM NEW."escalated_at")
  EXECUTE FUNCTION "harbor_webhook_outbox"();
