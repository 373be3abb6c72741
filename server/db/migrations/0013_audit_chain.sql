ALTER TABLE "audit_log" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "prev_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The canonical content of an audit row: the text of this jsonb object (PostgreSQL's jsonb text
-- form: keys ordered by byte length, then bytewise; ", " and ": " separators). `created_at` is UTC
-- with microseconds. scripts/verify-audit.mjs rebuilds exactly this text from an export.
CREATE FUNCTION audit_log_canonical(
  p_id bigint, p_seq bigint, p_tenant_id text, p_created_at timestamptz, p_actor_id text, p_action text,
  p_subject_type text, p_subject_id text, p_outcome text, p_details jsonb
) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', p_id,
    'seq', p_seq,
    'tenant_id', p_tenant_id,
    'created_at', to_char(p_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'actor_id', p_actor_id,
    'action', p_action,
    'subject_type', p_subject_type,
    'subject_id', p_subject_id,
    'outcome', p_outcome,
    'details', p_details
  )::text
$$;--> statement-breakpoint
-- hash = hex(sha256(utf8(prev_hash || canonical content))).
CREATE FUNCTION audit_log_hash(p_prev_hash text, p_canonical text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(p_prev_hash || p_canonical, 'UTF8')), 'hex')
$$;--> statement-breakpoint
-- Existing rows: numbered per tenant in id order, then chained in that order.
UPDATE "audit_log" a SET "seq" = o.n
FROM (SELECT id, row_number() OVER (PARTITION BY tenant_id ORDER BY id) AS n FROM "audit_log") o
WHERE a.id = o.id;--> statement-breakpoint
DO $$
DECLARE
  r record;
  prev text := repeat('0', 64);
  current_tenant text := NULL;
BEGIN
  FOR r IN SELECT * FROM "audit_log" ORDER BY tenant_id, seq LOOP
    IF current_tenant IS DISTINCT FROM r.tenant_id THEN
      prev := repeat('0', 64);
      current_tenant := r.tenant_id;
    END IF;
    UPDATE "audit_log" SET "prev_hash" = prev,
      "hash" = audit_log_hash(prev, audit_log_canonical(r.id, r.seq, r.tenant_id, r.created_at, r.actor_id, r.action,
        r.subject_type, r.subject_id, r.outcome, r.details))
    WHERE id = r.id
    RETURNING "hash" INTO prev;
  END LOOP;
END
$$;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_chain_idx" ON "audit_log" USING btree ("tenant_id","seq");--> statement-breakpoint
-- Every insert, however it is written (appendAudit or a CTE inside a larger statement), is chained
-- here: one writer per tenant at a time (a transaction-scoped advisory lock), after the tenant's
-- last row. Whatever the insert said for seq, prev_hash and hash is overwritten.
-- The lock is held until commit; a statement inserting rows of several tenants orders them by
-- tenant_id, so that such locks are always taken in one order.
CREATE FUNCTION audit_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(1096107081, hashtext(NEW.tenant_id));
  SELECT seq, hash INTO last_seq, last_hash FROM audit_log WHERE tenant_id = NEW.tenant_id ORDER BY seq DESC LIMIT 1;
  NEW.seq := coalesce(last_seq, 0) + 1;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.hash := audit_log_hash(NEW.prev_hash, audit_log_canonical(NEW.id, NEW.seq, NEW.tenant_id, NEW.created_at,
    NEW.actor_id, NEW.action, NEW.subject_type, NEW.subject_id, NEW.outcome, NEW.details));
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER audit_log_chain BEFORE INSERT ON "audit_log" FOR EACH ROW EXECUTE FUNCTION audit_log_chain();--> statement-breakpoint
-- Append-only: rows are never changed or removed, except all of a tenant's together when the
-- tenant itself is deleted (the foreign key's cascade).
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM tenants WHERE id = OLD.tenant_id) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'P0001';
END
$$;--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
