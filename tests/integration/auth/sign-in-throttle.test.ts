/**
 * The sign-in throttle's store: on PostgreSQL the counters live in `sign_in_failures` (from the
 * migrations), shared by every process and keyed without the email; the embedded database keeps
 * them in memory.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createSignInThrottle, throttleKeys } from "@/server/auth/throttle";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

const SECRET = "a-secret-for-the-throttle-tests";
const limits = { failures: 5, clientFailures: 50, accountFailures: 1000, windowSeconds: 900 };

describe.each(testBackends())("the sign-in throttle on $name", (backend) => {
  const database = useSeededDatabase(backend);

  it("refuses the sixth attempt for one email from one client, shared by every process on the database", async () => {
    const pool = database.handle.pool;
    const one = createSignInThrottle(limits, { pool });
    const keys = throttleKeys(SECRET, "alice@acme.test", "10.1.2.3");
    for (let i = 0; i < 5; i++) expect(await one.attempt(keys)).toEqual({ allowed: true });
    expect(await one.attempt(keys)).toMatchObject({ allowed: false });
    // Another process sees the same count on PostgreSQL; the embedded database has only one process.
    if (pool) expect(await createSignInThrottle(limits, { pool }).attempt(keys)).toMatchObject({ allowed: false });
    await one.succeeded(keys);
    expect(await one.attempt(keys)).toEqual({ allowed: true });
  });

  it.runIf(backend.name === "postgres")("keeps HMAC keys in sign_in_failures, never the email or the address", async () => {
    const throttle = createSignInThrottle(limits, { pool: database.handle.pool });
    await throttle.attempt(throttleKeys(SECRET, "bob@acme.test", "10.9.8.7"));
    const rows = await queryRows<{ key: string; points: number; expire: string }>(database.db, sql`select * from sign_in_failures`);
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toMatch(/bob|acme|10\.9\.8\.7/);
    expect(rows.map((r) => r.key)).toContain(`email+client:${throttleKeys(SECRET, "bob@acme.test", "10.9.8.7").emailAndClient}`);
  });
});
