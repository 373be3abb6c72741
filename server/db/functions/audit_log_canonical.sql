-- The canonical text of an audit row that its hash covers (scripts/verify-audit.mjs rebuilds it the same way).
-- Changed only by a new migration that includes this text verbatim (tests/unit/db/sql-functions.test.ts).
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
$$;
