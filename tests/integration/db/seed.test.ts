import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { verifyPassword } from "@/server/crypto/password";
import { findUserWithPasswordByEmail } from "@/server/db/queries/users";
import { DEMO_PASSWORD, seedDemo } from "@/server/db/seed";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";

describe.each(testBackends())("the demo seed on $name", (backend) => {
  const h = useSeededDatabase(backend);

  it.each([
    ["alice@acme.test", "member", "acme"],
    ["bob@acme.test", "approver", "acme"],
    ["carol@acme.test", "admin", "acme"],
    ["mallory@globex.test", "admin", "globex"],
  ])("creates %s as %s of %s with the demo password, hashed", async (email, role, tenant) => {
    const user = await findUserWithPasswordByEmail(h.db, email);
    expect(user).toMatchObject({ role, tenantSlug: tenant });
    expect(user!.passwordHash).not.toContain(DEMO_PASSWORD);
    expect(user!.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword(DEMO_PASSWORD, user!.passwordHash!)).toBe(true);
    expect(await verifyPassword("wrong", user!.passwordHash!)).toBe(false);
  });

  it("is idempotent", async () => {
    await seedDemo(h.db);
    const counts = await queryRows(
      h.db,
      sql`select (select count(*)::int from users) as users, (select count(*)::int from tenants) as tenants`,
    );
    expect(counts[0]).toEqual({ users: 4, tenants: 2 });
  });
});
