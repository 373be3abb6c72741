/**
 * The audit log's hash chain: kept by the database for every insert (appendAudit, multi-row
 * statements, inserts inside CTEs), append-only, exported by `audit.export` (admins, own tenant
 * only) and checked by `scripts/verify-audit.mjs` — which finds a tampered row in the file or in
 * the database, and a removed one.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditDownload } from "@/server/api/audit-download";
import { httpStatusOf } from "@/server/edge/errors";
import { appRouter } from "@/server/api/root";
import { createCallerFactory, type Context } from "@/server/api/trpc";
import type { Database } from "@/server/db";
import { MIGRATIONS_DIR } from "@/server/db/client";
import { appendAudit } from "@/server/db/queries/audit";
import type { Harbor } from "@/server/harbor";
import { log } from "@/server/log";
import { HarborError, type Identity, type VerifiedIdentity } from "@/server/runtime";
import { auditService } from "@/server/runtime/notify/audit";
import { postgresBackend, queryRows, required, testBackends, useSeededDatabase } from "../../helpers/backends";
import { createPostgresDatabase } from "../../helpers/postgres";
import { codeOf } from "../../helpers/trpc-errors";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const VERIFIER = path.join(ROOT, "scripts/verify-audit.mjs");
const GENESIS = "0".repeat(64);

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };
const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };
const adminOf = (tenantId: string): Identity => ({ tenantId, userId: `admin-${tenantId}`, roles: ["member", "approver", "admin"] });

/** Details that test the canonical form: key order, unicode, escapes, numbers kept as written. */
const TRICKY = {
  zz: 1.5,
  a: 'line\nbreak "quoted" back\\slash \u0001 tab\t',
  aa: ["ünïcødé", "😀", "\u2028", [], {}],
  nested: { b: null, a: true, ccc: false, big: 9007199254740991, neg: -0.000123, exp: 1e21 },
  "": "empty key",
};

const createCaller = createCallerFactory(appRouter);
const range = () => ({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000).toISOString() });

async function exportText(db: Database, identity: Identity, format: "jsonl" | "csv" = "jsonl"): Promise<string> {
  let text = "";
  for await (const chunk of await auditService(db).openExport(identity, { ...range(), format })) text += chunk;
  return text;
}

let tmpDir = "";
async function verify(content: string, name = "export.jsonl"): Promise<{ status: number | null; out: string }> {
  const file = path.join(tmpDir, `${Math.random().toString(36).slice(2)}-${name}`);
  await fs.writeFile(file, content);
  const result = spawnSync(process.execPath, [VERIFIER, file], { encoding: "utf8" });
  return { status: result.status, out: result.stdout + result.stderr };
}

async function addTenant(db: Database, id: string): Promise<void> {
  await db.execute(sql`insert into tenants (id, slug, name) values (${id}, ${id}, ${id})`);
}

async function append(db: Database, tenantId: string, n: number, details: Record<string, unknown> = {}): Promise<void> {
  for (let i = 0; i < n; i++)
    await appendAudit(db, {
      tenantId,
      actorId: "user-x",
      action: "test.append",
      subjectType: "test",
      subjectId: `s-${i}`,
      outcome: "ok",
      details,
    });
}

/** Every row of the tenant links to the one before and its hash is what the database recomputes. */
async function chainProblems(db: Database, tenantId: string): Promise<unknown[]> {
  return queryRows(
    db,
    sql`select a.seq, a.hash, a.prev_hash, p.hash as before from audit_log a
      left join audit_log p on p.tenant_id = a.tenant_id and p.seq = a.seq - 1
      where a.tenant_id = ${tenantId} and (
        a.prev_hash <> coalesce(p.hash, repeat('0', 64))
        or (a.seq > 1 and p.hash is null)
        or a.hash <> audit_log_hash(a.prev_hash, audit_log_canonical(a.id, a.seq, a.tenant_id, a.created_at, a.actor_id,
          a.action, a.subject_type, a.subject_id, a.outcome, a.details)))`,
  );
}

beforeAll(async () => {
  tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), "harbor-audit-"));
});
afterAll(async () => {
  await fs.rm(tmpDir, { recursive: true, force: true });
});

describe.each(testBackends())("the audit log's hash chain on $name", (backend) => {
  const database = useSeededDatabase(backend);
  const as = (identity: VerifiedIdentity | null) =>
    createCaller({
      harbor: { runtime: { audit: auditService(database.db) } } as unknown as Harbor,
      identity,
      requestId: "req-audit",
      log,
    } satisfies Context).audit;

  it("chains every insert per tenant, from a genesis of zeros, whatever the insert says", async () => {
    const db = database.db;
    await addTenant(db, "tenant-chain");
    await append(db, "tenant-chain", 3, TRICKY);
    // A forged chain in the insert is overwritten.
    await db.execute(sql`insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, seq, prev_hash, hash)
      values ('tenant-chain', null, 'forged', 'test', 'f', 'ok', 99, 'x', 'y')`);
    // Several rows in one statement, and rows inserted inside a CTE (as claimInteractions does).
    await db.execute(sql`insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select 'tenant-chain', null, 'multi', 'test', g::text, 'ok', jsonb_build_object('n', g) from generate_series(1, 4) g`);
    await db.execute(sql`with audited as (
        insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
        select t, null, 'cte', 'test', t, 'ok', '{"via": "cte"}'::jsonb from unnest(array['tenant-chain', 'tenant-chain']) t
        returning id
      ) select count(*) from audited`);
    // Rows of several tenants in one statement (as a reclaim or an expiry sweep writes them).
    await addTenant(db, "tenant-chain-2");
    await db.execute(sql`insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome)
      select t, null, 'mixed', 'test', t, 'ok' from unnest(array['tenant-chain-2', 'tenant-chain', 'tenant-chain-2']) t order by t`);
    expect(await chainProblems(db, "tenant-chain-2")).toEqual([]);
    const rows = await queryRows<{ seq: string; prev_hash: string; hash: string; action: string }>(
      db,
      sql`select seq::text, prev_hash, hash, action from audit_log where tenant_id = 'tenant-chain' order by audit_log.seq`,
    );
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(rows[0]?.prev_hash).toBe(GENESIS);
    expect(rows[3]).toMatchObject({ action: "forged" });
    expect(rows[3]?.hash).toMatch(/^[0-9a-f]{64}$/);
    for (let i = 1; i < rows.length; i++) expect(rows[i]?.prev_hash).toBe(rows[i - 1]?.hash);
    expect(await chainProblems(db, "tenant-chain")).toEqual([]);
  });

  it("refuses updates and deletes, but lets a deleted tenant take its whole chain with it", async () => {
    const db = database.db;
    await addTenant(db, "tenant-gone");
    await append(db, "tenant-gone", 2);
    await expect(db.execute(sql`update audit_log set outcome = 'changed' where tenant_id = 'tenant-gone'`)).rejects.toThrow();
    await expect(db.execute(sql`delete from audit_log where tenant_id = 'tenant-gone'`)).rejects.toThrow();
    const [kept] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from audit_log where tenant_id = 'tenant-gone'`);
    expect(kept?.n).toBe(2);
    await db.execute(sql`delete from tenants where id = 'tenant-gone'`);
    const [left] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from audit_log where tenant_id = 'tenant-gone'`);
    expect(left?.n).toBe(0);
  });

  it("exports JSON Lines and CSV that the verifier accepts, and names the row that was tampered with or removed", async () => {
    const db = database.db;
    await addTenant(db, "tenant-file");
    await append(db, "tenant-file", 4, TRICKY);
    // Numbers as PostgreSQL keeps them (a scale, an exponent), which JSON.parse would not.
    await db.execute(sql`insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      values ('tenant-file', null, 'raw', 'test', 'r', 'ok', '{"price": 1.50, "e": 1E+2, "s": "a,b\\r\\n\\"c\\""}')`);
    // Subjects a member can name (a thread's id) that a spreadsheet would run as formulas.
    const formulas = ["=2+5", '=HYPERLINK("https://evil.example","x")', "+1", "-1", "@SUM(A1)", "\tx", "\rx", "'=quoted", "''"];
    for (const subjectId of formulas) {
      await appendAudit(db, {
        tenantId: "tenant-file",
        actorId: "user-x",
        action: "test.formula",
        subjectType: "thread",
        subjectId,
        outcome: "ok",
        details: {},
      });
    }
    const admin = adminOf("tenant-file");
    const jsonl = await exportText(db, admin);
    const lines = jsonl.trimEnd().split("\n");
    expect(lines).toHaveLength(6 + formulas.length); // the rows and the export's own record
    expect(await verify(jsonl)).toMatchObject({ status: 0 });
    const csv = await exportText(db, admin, "csv");
    expect(csv.startsWith("id,seq,tenant_id,created_at,actor_id,action,subject_type,subject_id,outcome,details,prev_hash,hash\r\n")).toBe(
      true,
    );
    const csvResult = await verify(csv, "export.csv");
    expect(csvResult.out).toContain("OK");
    expect(csvResult.status).toBe(0);
    // No cell starts a formula: each such value follows a `'` (inside quotes where it must be).
    const cells = csv.split(/,|\r\n/).map((cell) => cell.replace(/^"/, ""));
    expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(csv).toContain(",'=2+5,");
    expect(csv).toContain(`,"'=HYPERLINK(""https://evil.example"",""x"")",`);
    expect(csv).toContain(",''=quoted,");

    // Each line parses as JSON and carries the chain.
    const third = JSON.parse(lines[2] ?? "") as { seq: number; details: typeof TRICKY; prev_hash: string; hash: string };
    expect(third.seq).toBe(3);
    expect(third.details.a).toBe(TRICKY.a);

    // A changed detail in the file.
    const tampered = lines.map((line, i) => (i === 2 ? line.replace('"empty key"', '"emptied key"') : line));
    expect(tampered[2]).not.toBe(lines[2]);
    const changed = await verify(`${tampered.join("\n")}\n`);
    expect(changed.status).toBe(1);
    expect(changed.out).toMatch(/FAIL at line 3 \(id \d+, seq 3\): hash does not match/);

    // A removed row in the middle.
    const removed = await verify(`${lines.filter((_, i) => i !== 2).join("\n")}\n`);
    expect(removed.status).toBe(1);
    expect(removed.out).toMatch(/FAIL at line 3 \(id \d+, seq 4\): seq 4 does not follow seq 2/);

    // A row whose hash was recomputed by the tamperer no longer links to the next one.
    const row3 = JSON.parse(lines[2] ?? "") as Record<string, unknown>;
    const forged = await verify(
      `${lines.map((line, i) => (i === 2 ? JSON.stringify({ ...row3, hash: "f".repeat(64) }) : line)).join("\n")}\n`,
    );
    expect(forged.status).toBe(1);
    expect(forged.out).toMatch(/FAIL at line 3/);
  });

  it("detects a row changed in the database behind the trigger's back on the next export", async () => {
    const db = database.db;
    await addTenant(db, "tenant-tamper");
    await append(db, "tenant-tamper", 4, { amount: 100 });
    const admin = adminOf("tenant-tamper");
    expect(await verify(await exportText(db, admin))).toMatchObject({ status: 0 });
    await db.execute(sql`alter table audit_log disable trigger audit_log_append_only`);
    try {
      await db.execute(sql`update audit_log set details = '{"amount": 1}' where tenant_id = 'tenant-tamper' and seq = 2`);
    } finally {
      await db.execute(sql`alter table audit_log enable trigger audit_log_append_only`);
    }
    const result = await verify(await exportText(db, admin));
    expect(result.status).toBe(1);
    expect(result.out).toMatch(/FAIL at line 2 \(id \d+, seq 2\): hash does not match/);
  });

  it("exports the caller's tenant only, to admins only, over a bounded range, in pages", async () => {
    const db = database.db;
    await append(db, "tenant-acme", 5, { secret: "acme-only" });
    await append(db, "tenant-globex", 2, { other: "globex" });
    const { from, to } = range();

    expect(await codeOf(as(alice).export({ from, to, format: "jsonl" }))).toBe("FORBIDDEN");
    expect(await codeOf(as(bob).export({ from, to, format: "csv" }))).toBe("FORBIDDEN");
    expect(await codeOf(as(null).export({ from, to, format: "jsonl" }))).toBe("UNAUTHORIZED");
    await expect(auditService(db).openExport(alice, { from, to, format: "jsonl" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await codeOf(as(carol).export({ from: "2025-01-01", to: "2026-12-31", format: "jsonl" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(carol).export({ from: to, to: from, format: "jsonl" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(carol).export({ from: "0000-01-01", to: "0000-02-01", format: "jsonl" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(carol).export({ from: "9999-12-01", to: "9999-12-31", format: "jsonl" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(carol).export({ from, to, format: "xml" as "csv" }))).toBe("BAD_REQUEST");

    const globex = await as(mallory).export({ from, to, format: "jsonl" });
    expect(globex.content).toContain("globex");
    expect(globex.content).not.toContain("acme");

    // Pages of two, joined, are the whole export and verify.
    let content = "";
    let afterSeq = 0;
    for (let pages = 0; pages < 100; pages++) {
      const page = await as(carol).export({ from, to, format: "jsonl", afterSeq, limit: 2 });
      content += page.content;
      if (page.nextAfterSeq === null) break;
      expect(page.rows).toBe(2);
      afterSeq = page.nextAfterSeq;
    }
    expect(content).toContain("acme-only");
    expect(content).not.toContain("globex");
    expect(await verify(content)).toMatchObject({ status: 0 });
    const exports = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from audit_log where tenant_id = 'tenant-acme' and action = 'audit.export'`,
    );
    expect(exports[0]?.n).toBe(1); // one export, several pages: recorded once

    // The console's download: an attachment streamed in pages, the same chain.
    const params = (q: Record<string, string>) => new URLSearchParams(q);
    const response = await auditDownload(
      auditService(db),
      carol,
      params({ from: from.slice(0, 10), to: to.slice(0, 10), format: "csv" }),
      {},
      log,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="harbor-audit-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const downloaded = await response.text();
    expect(downloaded).toContain("acme-only");
    expect(await verify(downloaded, "download.csv")).toMatchObject({ status: 0 });
    const refused = async (identity: Identity, q: Record<string, string>) => {
      const error = await auditDownload(auditService(db), identity, params(q), {}, log).then(
        () => undefined,
        (e: unknown) => e,
      );
      return HarborError.is(error) ? httpStatusOf(error.code) : error;
    };
    expect(await refused(alice, { from, to })).toBe(403);
    expect(await refused(carol, { from, to, format: "xml" })).toBe(400);
    expect(await refused(carol, { from: "yesterday", to })).toBe(400);
    expect(await refused(carol, { to })).toBe(400);

    // A range before any row exports nothing.
    const empty = await as(carol).export({ from: "2020-01-01", to: "2020-12-31", format: "csv" });
    expect(empty).toMatchObject({ rows: 0, nextAfterSeq: null });
  });
});

const postgres = postgresBackend();

describe.skipIf(!postgres)("the audit chain under concurrent writers on postgres", () => {
  const database = useSeededDatabase(required(postgres));

  it("stays one unbroken chain when 50 writers append at once, alone and in transactions", async () => {
    const db = database.db;
    await addTenant(db, "tenant-race");
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        appendAudit(db, {
          tenantId: "tenant-race",
          actorId: `u-${i}`,
          action: "race",
          subjectType: "test",
          subjectId: String(i),
          outcome: "ok",
        }),
      ),
    );
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.transaction(async (tx) => {
          await appendAudit(tx, {
            tenantId: "tenant-race",
            actorId: null,
            action: "race.tx",
            subjectType: "test",
            subjectId: `a${i}`,
            outcome: "ok",
          });
          await appendAudit(tx, {
            tenantId: "tenant-globex",
            actorId: null,
            action: "race.other",
            subjectType: "test",
            subjectId: `g${i}`,
            outcome: "ok",
          });
          await appendAudit(tx, {
            tenantId: "tenant-race",
            actorId: null,
            action: "race.tx",
            subjectType: "test",
            subjectId: `b${i}`,
            outcome: "ok",
          });
        }),
      ),
    );
    const [count] = await queryRows<{ n: number; max: number }>(
      db,
      sql`select count(*)::int as n, max(seq)::int as max from audit_log where tenant_id = 'tenant-race'`,
    );
    expect(count).toEqual({ n: 90, max: 90 });
    expect(await chainProblems(db, "tenant-race")).toEqual([]);
    expect(await chainProblems(db, "tenant-globex")).toEqual([]);
    const result = await verify(await exportText(db, adminOf("tenant-race")));
    expect(result.out).toContain("OK: 91 rows");
    expect(result.status).toBe(0);
  });

  it("chains the rows that were there before the migration, per tenant in id order", async () => {
    const created = await createPostgresDatabase(process.env.TEST_DATABASE_URL ?? "");
    const pool = new pg.Pool({ connectionString: created.url, max: 1 });
    const before = await fs.mkdtemp(path.join(os.tmpdir(), "harbor-migrations-"));
    try {
      // The migrations up to the one before the chain, then rows, then the chain's migration.
      const journal = JSON.parse(await fs.readFile(path.join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8")) as {
        entries: { tag: string }[];
      };
      const upTo = journal.entries.findIndex((e) => e.tag === "0013_audit_chain");
      await fs.mkdir(path.join(before, "meta"));
      await fs.writeFile(path.join(before, "meta/_journal.json"), JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));
      for (const entry of journal.entries.slice(0, upTo))
        await fs.copyFile(path.join(MIGRATIONS_DIR, `${entry.tag}.sql`), path.join(before, `${entry.tag}.sql`));
      await migrate(drizzle(pool), { migrationsFolder: before });
      await pool.query(`insert into tenants (id, slug, name) values ('t1', 't1', 'T1'), ('t2', 't2', 'T2')`);
      for (const t of ["t1", "t2", "t1", "t1", "t2"])
        await pool.query(
          `insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details) values ($1, null, 'old', 'x', 'y', 'ok', '{"k": 1.50}')`,
          [t],
        );
      await migrate(drizzle(pool), { migrationsFolder: MIGRATIONS_DIR });
      const { rows } = await pool.query<{ tenant_id: string; seq: string; prev_hash: string; hash: string; ok: boolean }>(
        `select tenant_id, seq::text, prev_hash, hash,
           hash = audit_log_hash(prev_hash, audit_log_canonical(id, seq, tenant_id, created_at, actor_id, action, subject_type, subject_id, outcome, details)) as ok
         from audit_log order by id`,
      );
      expect(rows.map((r) => `${r.tenant_id}:${r.seq}`)).toEqual(["t1:1", "t2:1", "t1:2", "t1:3", "t2:2"]);
      expect(rows.every((r) => r.ok)).toBe(true);
      expect(rows[0]?.prev_hash).toBe(GENESIS);
      expect(rows[2]?.prev_hash).toBe(rows[0]?.hash);
      expect(rows[4]?.prev_hash).toBe(rows[1]?.hash);
      // The next insert continues each chain.
      await pool.query(
        `insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome) values ('t2', null, 'new', 'x', 'y', 'ok')`,
      );
      const { rows: next } = await pool.query<{ seq: string; prev_hash: string }>(
        `select seq::text, prev_hash from audit_log where action = 'new'`,
      );
      expect(next[0]).toEqual({ seq: "3", prev_hash: rows[4]?.hash });
    } finally {
      await pool.end();
      await created.drop();
      await fs.rm(before, { recursive: true, force: true });
    }
  });
});
