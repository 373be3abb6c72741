-- Writes a webhook delivery for each subscribed webhook when a pause is requested, reminded, escalated, resolved or expired.
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "harbor_webhook_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ev text;
  body jsonb;
  shown_thread text;
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
  -- Most tenants have no webhook for most events: say so before building a payload nobody reads
  -- (the payload costs more than the rest of the pause's triggers together).
  IF NOT EXISTS (SELECT 1 FROM "webhooks" w WHERE w."tenant_id" = NEW.tenant_id AND ev = ANY (w."events")) THEN
    RETURN NULL;
  END IF;
  SELECT coalesce(t."client_id", t."id") INTO shown_thread FROM "threads" t WHERE t."id" = NEW.thread_id;
  body := jsonb_build_object(
    'type', ev,
    'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', jsonb_strip_nulls(jsonb_build_object(
      'interactionId', NEW.id,
      'runId', NEW.run_id,
      'threadId', coalesce(shown_thread, NEW.thread_id),
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
$$;
