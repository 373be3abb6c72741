/**
 * What tenants store: measured now and then (a few scans), kept in `tenant_storage`, and read by
 * the first statement of a run (`beginRuns`), which refuses a tenant over its quota.
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { column, rowsOf } from "./rows";

/**
 * Measures every tenant's stored bytes — its runs' events, its threads' messages, snapshot states
 * and shared states — unless a measure younger than `minAgeMs` exists (several instances share one).
 */
export async function measureTenantStorage(db: Executor, minAgeMs: number): Promise<void> {
  await db.execute(sql`
    insert into tenant_storage (tenant_id, bytes, measured_at)
    select t.id, coalesce(ev.bytes, 0) + coalesce(msg.bytes, 0) + coalesce(st.bytes, 0) + coalesce(th.bytes, 0), now()
    from tenants t
      left join (
        select r.tenant_id, sum(pg_column_size(e.data))::bigint as bytes from run_events e join runs r on r.id = e.run_id group by r.tenant_id
      ) ev on ev.tenant_id = t.id
      left join (
        select h.tenant_id, sum(pg_column_size(m.content) + coalesce(pg_column_size(m.tool_calls), 0))::bigint as bytes
        from messages m join threads h on h.id = m.thread_id group by h.tenant_id
      ) msg on msg.tenant_id = t.id
      left join (
        select h.tenant_id, sum(pg_column_size(s.state))::bigint as bytes from snapshot_states s join threads h on h.id = s.thread_id group by h.tenant_id
      ) st on st.tenant_id = t.id
      left join (select tenant_id, sum(pg_column_size(state))::bigint as bytes from threads group by tenant_id) th on th.tenant_id = t.id
    where not exists (select 1 from tenant_storage x where x.measured_at > now() - ${minAgeMs} * interval '1 millisecond')
    on conflict (tenant_id) do update set bytes = excluded.bytes, measured_at = excluded.measured_at`);
}

/** A tenant's stored bytes as last measured (0 before the first measure). */
export async function storedBytesOf(db: Executor, tenantId: string): Promise<number> {
  const result = await db.execute(sql`select bytes from tenant_storage where tenant_id = ${tenantId}`);
  const [row] = rowsOf(result, z.object({ bytes: column.number }));
  return row?.bytes ?? 0;
}
