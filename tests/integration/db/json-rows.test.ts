/**
 * A statement's rows in one JSON parameter: read back as written, and reckoned by the planner at
 * a handful of rows, so a prepared statement's one plan finds each row of a large table by its key.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jsonRows } from "@/server/db/queries/json-rows";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

type Plan = { "Node Type": string; "Plan Rows": number; "Index Name"?: string; Plans?: Plan[] };
const nodes = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe.each(testBackends())("rows from one JSON parameter, on $name", (backend) => {
  const h = useSeededDatabase(backend);

  async function planOf(statement: ReturnType<typeof sql>): Promise<Plan> {
    const [row] = await queryRows<{ "QUERY PLAN": [{ Plan: Plan }] | string }>(h.db, sql`explain (format json) ${statement}`);
    const plan = row!["QUERY PLAN"];
    return (typeof plan === "string" ? (JSON.parse(plan) as [{ Plan: Plan }]) : plan)[0].Plan;
  }

  it("reads each row's columns by key, a missing key as null", async () => {
    const rows = await queryRows<{ id: string; n: number | null; flag: boolean | null; data: unknown }>(
      h.db,
      sql`select * from ${jsonRows([{ id: "a", n: 1, flag: true, data: { x: [1, "two"] } }, { id: 'b "quoted"' }], "r", "id text, n int, flag boolean, data jsonb")}`,
    );
    expect(rows).toEqual([
      { id: "a", n: 1, flag: true, data: { x: [1, "two"] } },
      { id: 'b "quoted"', n: null, flag: null, data: null },
    ]);
  });

  it("is reckoned at 10 rows, as an unnest of an array parameter is, not at 100", async () => {
    const plan = await planOf(sql`select * from ${jsonRows([{ id: "a" }], "r", "id text")}`);
    expect(plan["Plan Rows"]).toBe(10);
  });

  it("lets an update of a large table find its rows by key", async () => {
    await h.db.execute(sql`insert into threads (id, tenant_id, owner_id, title) values ('t-bulk', 'tenant-acme', 'user-alice', 'bulk')`);
    await h.db.execute(sql`
      insert into runs (id, tenant_id, thread_id, owner_id, agent_id, status, transport_run_id, instance_id)
      select 'bulk-' || g, 'tenant-acme', 't-bulk', 'user-alice', 'concierge', 'completed', 'x', 'i-test'
      from generate_series(1, 20000) g`);
    await h.db.execute(sql`analyze runs`);
    const plan = await planOf(sql`update runs set status = u.status
      from ${jsonRows([{ id: "bulk-5", status: "failed" }], "u", "id text, status text")} where runs.id = u.id`);
    expect(nodes(plan).map((n) => n["Node Type"])).not.toContain("Seq Scan");
    expect(nodes(plan).some((n) => n["Index Name"] === "runs_pkey")).toBe(true);
  });
});
