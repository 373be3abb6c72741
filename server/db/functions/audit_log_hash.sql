-- One link of the audit chain: sha256 of the previous hash and the row's canonical text.
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
CREATE FUNCTION audit_log_hash(p_prev_hash text, p_canonical text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(p_prev_hash || p_canonical, 'UTF8')), 'hex')
$$;
