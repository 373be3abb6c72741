-- Numbers and hashes each new audit row after its tenant's previous one (under the tenant's advisory lock).
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
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
$$;
