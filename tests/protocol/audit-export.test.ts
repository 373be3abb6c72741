/**
 * The audit export over HTTP: an approver's decision lands in the tenant's hash-chained audit log,
 * an admin downloads it (session cookie or bearer token) as an attachment from the console's route
 * or pages it over tRPC, and `scripts/verify-audit.mjs` accepts the file; members are refused and
 * other tenants' rows never appear.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, interruptsOf, runTurn, userMessage } from "../helpers/agui";
import { authHeaders, createToken, signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

const VERIFIER = path.resolve("scripts/verify-audit.mjs");

let tmpDir = "";
beforeAll(async () => {
  tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), "harbor-audit-http-"));
});
afterAll(async () => {
  await fs.rm(tmpDir, { recursive: true, force: true });
});

async function verify(content: string, name: string): Promise<{ status: number | null; out: string }> {
  const file = path.join(tmpDir, `${randomUUID()}-${name}`);
  await fs.writeFile(file, content);
  const result = spawnSync(process.execPath, [VERIFIER, file], { encoding: "utf8" });
  return { status: result.status, out: result.stdout + result.stderr };
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe.each(inject("servers"))("the audit export on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let carol: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    ({ alice, bob, carol, mallory } = await signInCast(server.url));
  });

  const download = (auth: Auth | null, query: string) =>
    fetch(`${server.url}/api/audit/export?${query}`, { headers: auth ? authHeaders(auth) : {} });

  it("holds an approver's decision, downloads as a verifiable attachment, and stays in its tenant", async () => {
    const turn = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId: randomUUID(),
      messages: [userMessage("transfer 12 EUR to AUDIT-1")],
    });
    const [gate] = interruptsOf(turn.events);
    expect(gate, "the transfer should park on an approval").toBeDefined();
    const approved = await trpcMutation(server.url, bob, "interactions.approve", { interactionId: gate!.id, reason: "audited" });
    expect(approved.error).toBeUndefined();

    const range = `from=${day(-1)}&to=${day(1)}`;
    const jsonl = await download(carol, `${range}&format=jsonl`);
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get("content-disposition")).toMatch(/^attachment; filename="harbor-audit-.*\.jsonl"$/);
    const text = await jsonl.text();
    const rows = text
      .trimEnd()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            action: string;
            actor_id: string | null;
            subject_id: string;
            tenant_id: string;
            details: Record<string, unknown>;
          },
      );
    expect(rows.find((r) => r.action === "interaction.resolve" && r.subject_id === gate!.id)).toMatchObject({
      actor_id: "user-bob",
      details: { decision: { approved: true, reason: "audited" } },
    });
    expect(rows.every((r) => r.tenant_id === "tenant-acme")).toBe(true);
    expect(await verify(text, "export.jsonl")).toMatchObject({ status: 0 });

    // A bearer token works too; CSV verifies the same way.
    const carolCookie = (carol as { cookie: string }).cookie;
    const token = await createToken(server.url, carolCookie, "audit");
    const csv = await download({ bearer: token.token }, `${range}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await verify(await csv.text(), "export.csv")).toMatchObject({ status: 0 });

    // Another tenant's admin sees its own rows only.
    const globex = await (await download(mallory, `${range}&format=jsonl`)).text();
    expect(globex).not.toContain("tenant-acme");
    expect(globex).toContain("tenant-globex");
  });

  it("refuses members, strangers and unbounded ranges", async () => {
    const range = `from=${day(-1)}&to=${day(1)}`;
    expect((await download(null, range)).status).toBe(401);
    expect((await download(alice, range)).status).toBe(403);
    expect((await download(bob, range)).status).toBe(403);
    const tooLong = await download(carol, `from=2024-01-01&to=2026-01-01&format=csv`);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "to" } });
    expect((await download(carol, `${range}&format=xml`)).status).toBe(400);

    const asAlice = await trpcQuery(server.url, alice, "audit.export", { from: day(-1), to: day(1), format: "jsonl" });
    expect(asAlice.error?.data).toMatchObject({ code: "FORBIDDEN", httpStatus: 403 });
    const page = await trpcQuery<{ content: string; rows: number; nextAfterSeq: number | null }>(server.url, carol, "audit.export", {
      from: day(-1),
      to: day(1),
      format: "jsonl",
      limit: 1000,
    });
    expect(page.data?.rows).toBeGreaterThan(0);
    expect(await verify(page.data?.content ?? "", "page.jsonl")).toMatchObject({ status: 0 });
  });

  it("serves the console's export form to admins, with labelled controls", async () => {
    const page = await fetch(`${server.url}/console/audit`, { headers: authHeaders(carol) });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/api/audit/export"');
    for (const label of ["From (UTC day)", "To (UTC day, included)", "Format", "Download"]) expect(html).toContain(label);
    const forMember = await (await fetch(`${server.url}/console/audit`, { headers: authHeaders(bob) })).text();
    expect(forMember).toContain("Admins only");
  });
});
