CREATE TABLE "webhook_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"error" text,
	"duration_ms" integer NOT NULL,
	"instance_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret_sealed" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_idx" ON "webhook_deliveries" USING btree ("webhook_id","created_at");--> statement-breakpoint
CREATE INDEX "webhooks_tenant_idx" ON "webhooks" USING btree ("tenant_id");--> statement-breakpoint
-- The webhook outbox is written by the database itself, in the transaction of the change it
-- describes, whichever statement makes it (parking, claims, closing, a job's result): a pause
-- (an interaction with a pause reason) that is created is `pause.requested`; one that leaves
-- `pending` for resolved, rejected or cancelled is `pause.resolved`; for expired or lost (its
-- serving process went away: nobody can answer it any more) `pause.expired`. One row per
-- webhook of the tenant that subscribed to the event. The payload holds ids, kind, status and
-- the tool's name: never arguments, answers or private values.
CREATE FUNCTION "harbor_webhook_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
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
      'resolvedAt', to_char(NEW.resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    ))
  );
  INSERT INTO "webhook_deliveries" ("id", "webhook_id", "tenant_id", "event", "payload")
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w."id", w."tenant_id", ev, body
    FROM "webhooks" w
    WHERE w."tenant_id" = NEW.tenant_id AND ev = ANY (w."events");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "interactions_webhook_requested" AFTER INSERT ON "interactions"
  FOR EACH ROW EXECUTE FUNCTION "harbor_webhook_outbox"();--> statement-breakpoint
CREATE TRIGGER "interactions_webhook_changed" AFTER UPDATE OF "status" ON "interactions"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status") EXECUTE FUNCTION "harbor_webhook_outbox"();
