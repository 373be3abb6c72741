/**
 * The durable floor later issues are judged against: two single-row commits per cycle — insert a
 * pending row, then claim it with `UPDATE … WHERE status = 'pending'` — sequentially and with 50
 * cycles in flight, on the same engines Harbor runs on.
 */
import { performance } from "node:perf_hooks";
import { percentile } from "./stats";

export interface Sql {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface FloorResult {
  engine: string;
  inFlight: number;
  cyclesPerSecond: number;
  p50: number;
  p99: number;
}

export async function measureFloor(engine: string, sql: Sql, inFlight: number, seconds: number): Promise<FloorResult> {
  await sql.query("create table if not exists bench_claims (id bigserial primary key, status text not null)");
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  async function worker() {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const inserted = await sql.query<{ id: string }>("insert into bench_claims (status) values ('pending') returning id");
      const claimed = await sql.query<{ id: string }>(
        "update bench_claims set status = 'claimed' where id = $1 and status = 'pending' returning id",
        [inserted.rows[0]!.id],
      );
      if (claimed.rows.length !== 1) throw new Error("claim lost");
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    engine,
    inFlight,
    cyclesPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
