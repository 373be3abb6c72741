import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { seedDemo } from "@/server/db/seed";
import { queryRows, testBackends } from "../../helpers/backends";
import { createPostgresDatabase } from "../../helpers/postgres";

const TABLES = ["tenants", "users", "api_tokens", "threads", "messages", "runs", "run_events", "audit_log"];

describe.each(testBackends())("the schema on $name", (backend) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await backend.open();
  });
  afterAll(() => h.close());

  it("has every table after the migrations ran", async () => {
    const rows = await queryRows<{ table_name: string }>(
      h.db,
      sql`select table_name from information_schema.tables where table_schema = 'public'`,
    );
    const names = rows.map((r) => r.table_name);
    for (const table of TABLES) expect(names).toContain(table);
  });

  it("refuses a role outside member, approver and admin", async () => {
    await expect(
      h.db.execute(
        sql`insert into users (id, tenant_id, email, name, role, password_hash) values ('u-x', 'tenant-acme', 'x@acme.test', 'X', 'root', 'h')`,
      ),
    ).rejects.toThrow();
  });
});

describe("migrations", () => {
  it("run once when an embedded database is reopened", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-reopen-"));
    try {
      const first = await openDatabase({ engine: "pglite", dataDir: dir });
      await seedDemo(first.db);
      await first.close();
      const second = await openDatabase({ engine: "pglite", dataDir: dir });
      const users = await queryRows(second.db, sql`select count(*)::int as n from users`);
      expect(users[0]).toEqual({ n: 4 });
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(process.env.TEST_DATABASE_URL)("are serialised when several processes open PostgreSQL at once", async () => {
    const created = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    try {
      const handles = await Promise.all([1, 2, 3].map(() => openDatabase({ engine: "postgres", url: created.url, poolSize: 2 })));
      const applied = await queryRows(handles[0]!.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
      expect(applied[0]).toEqual({ n: fs.readdirSync("server/db/migrations").filter((f) => f.endsWith(".sql")).length });
      await Promise.all(handles.map((x) => x.close()));
    } finally {
      await created.drop();
    }
  });
});
