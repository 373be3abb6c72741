-- Refuses updates and deletes of audit rows — but a deleted tenant's, and retention's: with
-- `harbor.audit_retention` on in its transaction, a tenant's rows at or below an anchor that
-- records the hash they end on (audit_anchors).
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
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
