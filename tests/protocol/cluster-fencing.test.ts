/**
 * Fencing across real instances: an instance that stalls (SIGSTOP) past its TTL while it holds a
 * run is reclaimed by the others, which end the run INSTANCE_LOST. When it wakes (SIGCONT) it must
 * not act for that run any more: the model's next tool call, covered by alice's standing approval,
 * neither uses the grant (no count, no `grant.use` audit row for a call that never completed) nor
 * runs the tool.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGUI_CLIENTS, interruptsOf, postRun, runInput, runTurn, streamedText, userMessage } from "../helpers/agui";
import { hasPostgres, startCluster, TTL_MS, type Cluster } from "../helpers/cluster";
import { runOnThread, signInCast, trpcQuery, type Auth } from "../helpers/http";
import { startModelServer, type ChatRequest, type ModelServer } from "../helpers/model-server";

const toolResultOf = (request: ChatRequest) => (request.messages.at(-1)?.role === "tool" ? request.messages.at(-1) : undefined);

describe.skipIf(!hasPostgres)("an instance that stalls past its TTL while it holds a run", () => {
  let cluster: Cluster;
  let model: ModelServer;
  let db: pg.Client;
  let alice: Auth;
  let carol: Auth;

  beforeAll(async () => {
    model = await startModelServer();
    cluster = await startCluster(3, { HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted", HARBOR_MODEL_TIMEOUT_MS: "30000" });
    ({ alice, carol } = await signInCast(cluster.instances[0]!.url));
    db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await cluster?.stop();
    await model?.close();
  });

  const grantOf = async (to: string) =>
    (await db.query<{ id: string; uses: number }>(`select id, uses from approval_grants where bounds -> 'to' ->> 'equals' = $1`, [to]))
      .rows[0];
  const grantUses = async (grantId: string) =>
    (await db.query(`select 1 from audit_log where action = 'grant.use' and subject_id = $1`, [grantId])).rowCount;
  const emailsTo = async (to: string) => (await db.query(`select 1 from outbox where details ->> 'to' = $1`, [to])).rowCount;

  it("neither uses alice's standing approval nor runs the tool once it was taken over (SIGSTOP past the TTL, then SIGCONT)", async () => {
    const [a, b] = cluster.instances.map((s) => s.url) as [string, string];
    const to = `fenced-${randomUUID().slice(0, 8)}@example.com`;
    const threadId = randomUUID();
    const client = AGUI_CLIENTS[0]!;

    // The model emails `to`; alice approves and allows such emails for the conversation.
    model.script((request) =>
      toolResultOf(request) ? { text: "Sent." } : { toolCalls: [{ name: "send_email", args: { to, body: "one" } }] },
    );
    const parked = await runTurn(client, {
      baseUrl: a,
      auth: alice,
      threadId,
      agentId: "assistant",
      messages: [userMessage("email them")],
    });
    const [gate] = interruptsOf(parked.events);
    const resumed = await runTurn(client, {
      baseUrl: a,
      auth: alice,
      threadId,
      agentId: "assistant",
      agent: parked.agent,
      messages: [],
      resume: [{ interruptId: gate!.id, status: "resolved", payload: { approved: true, grant: { scope: "thread" } } }],
    });
    expect(streamedText(resumed.events)).toBe("Sent.");
    const grant = await grantOf(to);
    expect(grant).toBeDefined();
    expect(await emailsTo(to)).toBe(1);

    // The next turn runs on the victim; the model takes its time before calling the tool again.
    const victim = await cluster.add("stalled");
    const asked = model.requests.length;
    model.script((request) =>
      toolResultOf(request)
        ? { text: "Sent again." }
        : { stallMs: 2 * TTL_MS + 2_000, toolCalls: [{ name: "send_email", args: { to, body: "two" } }] },
    );
    const turn = postRun(victim.url, alice, runInput(threadId, [userMessage("email them again")]), "assistant")
      .then((res) => res.text())
      .catch(() => "cut");
    const runId = await runOnThread(b, carol, threadId, "running");
    await expect.poll(() => model.requests.length, { timeout: 10_000 }).toBeGreaterThan(asked);

    // Frozen while the model thinks, past its TTL: the others reclaim it and end the run.
    process.kill(victim.pid, "SIGSTOP");
    try {
      await expect
        .poll(async () => (await trpcQuery<{ status: string; error?: { code: string } }>(b, carol, "runs.get", { runId })).data, {
          timeout: 15_000,
        })
        .toMatchObject({ status: "failed", error: { code: "INSTANCE_LOST" } });
    } finally {
      process.kill(victim.pid, "SIGCONT");
    }
    // Awake, the victim reads the model's answer (once its stall is over): a call the grant covers.
    // It stops at its fence, before the grant or the tool, and says so.
    await turn;
    await expect
      .poll(() => fs.readFileSync(victim.logFile, "utf8"), { timeout: 15_000 })
      .toContain("this instance was reclaimed by another while it held it");
    // The first email was approved at its gate: the grant was never used, and still is not.
    expect(await grantUses(grant!.id)).toBe(0);
    expect((await grantOf(to))!.uses).toBe(0);
    expect(await emailsTo(to)).toBe(1);
    const run = (await trpcQuery<{ status: string }>(b, carol, "runs.get", { runId })).data;
    expect(run).toMatchObject({ status: "failed" });
  });
});
