/**
 * Three real `next start` instances on one PostgreSQL: any instance answers any request, exactly
 * once, and what a client sees does not depend on which instance it reached.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGUI_CLIENTS,
  approve,
  customEvents,
  interruptsOf,
  postRun,
  runError,
  runInput,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
} from "../helpers/agui";
import { hasPostgres, startCluster, TTL_MS, type Cluster } from "../helpers/cluster";
import { freePort, type RunningServer } from "../helpers/server";
import { consentAt } from "../helpers/consent";
import { startIdentityProvider, type RunningIdentityProvider } from "@/server/peers/identity-provider";
import { readSse, runOnThread, signInAll, trpcMutation, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";

interface OutboxRow {
  details: { to?: string };
}
interface RunRow {
  runId: string;
  threadId: string;
  status: string;
  error?: { code: string } | null;
}

describe.skipIf(!hasPostgres)("three instances on one PostgreSQL", () => {
  let cluster: Cluster;
  let a: string, b: string, c: string;
  let alice: Auth, bob: Auth, carol: Auth;

  beforeAll(async () => {
    cluster = await startCluster(3);
    [a, b, c] = cluster.instances.map((i) => i.url) as [string, string, string];
    // Sessions are JWTs signed with the shared secret: signed in on one instance, valid on all.
    const [ac, bc, cc] = await signInAll(a, ["alice@acme.test", "bob@acme.test", "carol@acme.test"]);
    alice = { cookie: ac! };
    bob = { cookie: bc! };
    carol = { cookie: cc! };
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  const outboxTo = async (to: string) =>
    ((await trpcQuery<OutboxRow[]>(a, alice, "outbox.list")).data ?? []).filter((row) => row.details.to === to);

  async function park(client: AguiClient, on: string, text: string) {
    const threadId = randomUUID();
    const turn = await runTurn(client, { baseUrl: on, auth: alice, threadId, messages: [userMessage(text)] });
    const [gate] = interruptsOf(turn.events);
    if (!gate) throw new Error(`expected an interrupt from ${text}`);
    return { threadId, gate, turn };
  }

  it("names a different instance at each /api/health", async () => {
    const names = await Promise.all(
      [a, b, c].map(async (url) => ((await (await fetch(`${url}/api/health`)).json()) as { instance: string }).instance),
    );
    expect(new Set(names).size).toBe(3);
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("parks on A and resumes on B: the continuation streams on B, and the email is sent once", async () => {
      const to = `cluster-${client.version}-${randomUUID().slice(0, 6)}@example.com`;
      const { threadId, gate, turn } = await park(client, a, `send an email to ${to} saying hello from A`);
      const resumed = await runTurn(client, {
        baseUrl: b,
        auth: alice,
        threadId,
        messages: [],
        agent: turn.agent,
        resume: [approve(gate.id)],
      });
      expect(customEvents(resumed.events, "pause.resumed")).toEqual([expect.objectContaining({ pauseId: gate.id, decision: "approved" })]);
      expect(resumed.events.map((e) => e.type)).toContain("TOOL_CALL_RESULT");
      expect(streamedText(resumed.events)).toBe(`Email sent to ${to}.`);
      expect(resumed.events[0]).toMatchObject({ type: "RUN_STARTED", threadId });
      expect(await outboxTo(to)).toHaveLength(1);
    });
  });

  it("takes exactly one of 200 concurrent answers spread over A, B and C", async () => {
    const to = `race-${randomUUID().slice(0, 6)}@example.com`;
    const { gate } = await park(AGUI_CLIENTS[0]!, a, `send an email to ${to} saying once`);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        trpcMutation(([a, b, c] as const)[i % 3]!, alice, "interactions.approve", { interactionId: gate.id }),
      ),
    );
    expect(answers.filter((r) => r.data !== undefined)).toHaveLength(1);
    const refusals = answers.filter((r) => r.error).map((r) => r.error!.data.code);
    expect(new Set(refusals)).toEqual(new Set(["CONFLICT"]));
    await expect.poll(() => outboxTo(to).then((rows) => rows.length), { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await outboxTo(to)).toHaveLength(1);
  });

  it("four-eyes across instances: alice's transfer parked on A, bob approves on B", async () => {
    const { gate, threadId } = await park(AGUI_CLIENTS[0]!, a, "transfer 42 EUR to CL-42");
    expect((await trpcMutation(c, alice, "interactions.approve", { interactionId: gate.id })).error?.data.code).toBe("FORBIDDEN");
    expect((await trpcMutation(b, bob, "interactions.approve", { interactionId: gate.id })).data).toBeDefined();
    await expect
      .poll(
        async () =>
          (await trpcQuery<{ messages: { content: string }[] }>(c, alice, "threads.get", { threadId })).data?.messages.at(-1)?.content,
        {
          timeout: 10_000,
        },
      )
      .toMatch(/Transferred 42 EUR to CL-42/);
  });

  it("shows a request parked on A in bob's inbox subscription on B within a second", async () => {
    const controller = new AbortController();
    const res = await trpcSubscribe(b, bob, "interactions.events", undefined, controller.signal);
    const seen = readSse(res, (frame) => frame.data.includes('"pending"'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await park(AGUI_CLIENTS[0]!, a, "transfer 7 EUR to CL-7");
    await seen;
    expect(Date.now() - started).toBeLessThan(3_000);
    controller.abort();
  });

  it("PAUSE on C of a run executing on A, RESUME on B: it goes on where it stopped, every number once; CANCEL across instances", async () => {
    const threadId = randomUUID();
    const turn = runTurn(AGUI_CLIENTS[0]!, { baseUrl: a, auth: alice, threadId, messages: [userMessage("count slowly to 8")] });
    const runId = await runOnThread(c, carol, threadId);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await trpcMutation(c, carol, "runs.steer", { runId, instruction: { type: "PAUSE" } })).data).toEqual({ accepted: true });
    const paused = await turn;
    expect(interruptsOf(paused.events)[0]).toMatchObject({ reason: "operator_pause" });
    const following = readSse(await trpcSubscribe(c, alice, "runs.events", { runId }), (f) => f.data.includes('"run.completed"'));
    expect((await trpcMutation(b, carol, "runs.steer", { runId, instruction: { type: "RESUME" } })).data).toEqual({ accepted: true });
    await following;
    const timeline = (await trpcQuery<{ event: { type: string; delta?: string } }[]>(b, carol, "runs.timeline", { runId })).data ?? [];
    const numbers = timeline.flatMap((e) =>
      e.event.type === "text.delta" && /^\d+$/.test(e.event.delta ?? "") ? [Number(e.event.delta)] : [],
    );
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    const second = randomUUID();
    const long = runTurn(AGUI_CLIENTS[0]!, { baseUrl: b, auth: alice, threadId: second, messages: [userMessage("count slowly to 500")] });
    const longRun = await runOnThread(a, carol, second);
    expect((await trpcMutation(a, alice, "runs.steer", { runId: longRun, instruction: { type: "CANCEL" } })).data).toEqual({
      accepted: true,
    });
    expect(customEvents((await long).events, "run.cancelled")).toEqual([{ runId: longRun, by: { role: "owner" } }]);
  });

  it("starting a fourth instance leaves A's pending approvals answerable", async () => {
    const to = `fourth-${randomUUID().slice(0, 6)}@example.com`;
    const { gate } = await park(AGUI_CLIENTS[0]!, a, `send an email to ${to} saying still here`);
    const d = await cluster.add("d");
    expect((await trpcMutation(d.url, alice, "interactions.approve", { interactionId: gate.id })).data).toBeDefined();
    await expect.poll(() => outboxTo(to).then((rows) => rows.length), { timeout: 10_000 }).toBe(1);
  });

  it("one queue for the cluster: a run queued on a full instance starts on another with room, and streams where it was asked", async () => {
    const narrow = await cluster.add("narrow", { HARBOR_MAX_ACTIVE_RUNS: "1" });
    const narrowId = ((await (await fetch(`${narrow.url}/api/health`)).json()) as { instance: string }).instance;
    const busyThread = randomUUID();
    const busy = postRun(narrow.url, alice, runInput(busyThread, [userMessage("count slowly to 500")]))
      .then((res) => res.text())
      .catch(() => "cut");
    const busyRun = await runOnThread(a, carol, busyThread, "running");
    const threadId = randomUUID();
    const queued = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: narrow.url,
      auth: alice,
      threadId,
      messages: [userMessage("count slowly to 2")],
    });
    expect(customEvents(queued.events, "run.queued")).toEqual([expect.objectContaining({ position: 1 })]);
    expect(
      queued.events.flatMap((e) => {
        const delta = e.type === "TEXT_MESSAGE_CONTENT" ? (e as typeof e & { delta: string }).delta : "";
        return /^\d+$/.test(delta) ? [Number(delta)] : [];
      }),
    ).toEqual([1, 2]);
    const run = ((await trpcQuery<(RunRow & { instanceId: string })[]>(a, carol, "runs.list", {})).data ?? []).find(
      (r) => r.threadId === threadId,
    );
    expect(run?.status).toBe("completed");
    expect(run?.instanceId).not.toBe(narrowId);
    await trpcMutation(a, alice, "runs.steer", { runId: busyRun, instruction: { type: "CANCEL" } });
    await busy;
  });

  it("after SIGKILL of A: its approval answers INTERACTION_LOST on B, its executing run ends INSTANCE_LOST, the thread goes on", async () => {
    const victim = await cluster.add("victim");
    const { gate } = await park(AGUI_CLIENTS[0]!, victim.url, `send an email to lost-${randomUUID().slice(0, 6)}@example.com saying gone`);
    const threadId = randomUUID();
    // A raw stream: the victim dies under it, and that is all this reader has to survive.
    const counting = postRun(victim.url, alice, runInput(threadId, [userMessage("count slowly to 500")]))
      .then((res) => res.text())
      .catch(() => "cut");
    const runId = await runOnThread(b, carol, threadId);
    await victim.kill();
    await counting;
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 1_000));

    const lost = await trpcMutation(b, alice, "interactions.approve", { interactionId: gate.id });
    expect(lost.error?.data.code).toBe("PRECONDITION_FAILED");
    expect(lost.error?.message).toMatch(/ask again/i);
    await expect
      .poll(async () => (await trpcQuery<RunRow>(b, carol, "runs.get", { runId })).data, { timeout: 10_000 })
      .toMatchObject({ status: "failed", error: { code: "INSTANCE_LOST" } });
    const next = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: c, auth: alice, threadId, messages: [userMessage("hello")] });
    expect(streamedText(next.events)).toMatch(/^Hello!/);
    expect(runError(next.events)).toBeUndefined();
  });
});

describe.skipIf(!hasPostgres)("a rolling restart with HARBOR_DURABLE_WAITS=approvals", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(3, { HARBOR_DURABLE_WAITS: "approvals" });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("restarts A, B and C in turn with 20 approvals pending: all answerable afterwards, each email sent once", async () => {
    const [first] = cluster.instances;
    const [cookie] = await signInAll(first!.url, ["alice@acme.test"]);
    const alice: Auth = { cookie: cookie! };
    const parked: { to: string; id: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const to = `rolling-${i}-${randomUUID().slice(0, 6)}@example.com`;
      const on = cluster.instances[i % 3]!.url;
      const turn = await runTurn(AGUI_CLIENTS[0]!, {
        baseUrl: on,
        auth: alice,
        threadId: randomUUID(),
        messages: [userMessage(`send an email to ${to} saying rolling`)],
      });
      parked.push({ to, id: interruptsOf(turn.events)[0]!.id });
    }
    // One at a time, as a deploy does: stop (SIGTERM), start a replacement, go on.
    const survivors: RunningServer[] = [];
    for (const old of [...cluster.instances]) {
      await old.stop();
      survivors.push(await cluster.add(`next-${survivors.length}`, { HARBOR_DURABLE_WAITS: "approvals" }));
    }
    const answers = await Promise.all(
      parked.map((p, i) => trpcMutation(survivors[i % 3]!.url, alice, "interactions.approve", { interactionId: p.id })),
    );
    expect(answers.map((a) => a.error?.message ?? "ok")).toEqual(parked.map(() => "ok"));
    const sentTo = async () =>
      ((await trpcQuery<OutboxRow[]>(survivors[0]!.url, alice, "outbox.list")).data ?? [])
        .map((r) => r.details.to)
        .filter((to) => to?.startsWith("rolling-"));
    await expect.poll(async () => (await sentTo()).length, { timeout: 20_000 }).toBe(20);
    expect(new Set(await sentTo()).size).toBe(20);
  }, 120_000);

  /**
   * A graceful stop hands its work to the others at once: its instance row says it is stopping,
   * durable waits are answered wherever they arrive, queued runs start elsewhere, and a run still
   * executing when the grace period ends goes on elsewhere from its checkpoint. Each test stops an
   * instance of its own; the others are whichever two started last (the earlier test replaced the first three).
   */
  describe("a graceful stop hands its work over", () => {
    let b: string, c: string;
    let alice: Auth, carol: Auth;
    let db: pg.Client;

    beforeAll(async () => {
      [b, c] = cluster.instances.slice(-2).map((i) => i.url) as [string, string];
      const [ac, cc] = await signInAll(b, ["alice@acme.test", "carol@acme.test"]);
      alice = { cookie: ac! };
      carol = { cookie: cc! };
      db = new pg.Client({ connectionString: cluster.databaseUrl });
      await db.connect();
    }, 60_000);
    afterAll(async () => {
      await db?.end();
    });

    const instanceOf = async (url: string) => ((await (await fetch(`${url}/api/health`)).json()) as { instance: string }).instance;
    /** Resolves once the instance's row says it is stopping (its SIGTERM was handled). */
    async function untilStopping(id: string) {
      await expect
        .poll(async () => (await db.query("select stopping_at from instances where id = $1", [id])).rows[0]?.stopping_at ?? null, {
          timeout: 5_000,
          interval: 10,
        })
        .not.toBeNull();
    }
    const sentTo = async (to: string) =>
      ((await trpcQuery<OutboxRow[]>(b, alice, "outbox.list")).data ?? []).filter((row) => row.details.to === to).length;
    const runOf = async (runId: string) => (await trpcQuery<RunRow & { instanceId: string | null }>(b, carol, "runs.get", { runId })).data;
    const countedIn = async (runId: string) =>
      ((await trpcQuery<{ event: { type: string; delta?: string } }[]>(b, carol, "runs.timeline", { runId })).data ?? []).flatMap((e) =>
        e.event.type === "text.delta" && /^\d+$/.test(e.event.delta ?? "") ? [Number(e.event.delta)] : [],
      );
    const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

    it("an approval parked on A and answered on B while A stops: it goes on on B at once, the email sent once", async () => {
      const a = await cluster.add("draining", { HARBOR_DURABLE_WAITS: "approvals", HARBOR_SHUTDOWN_GRACE_MS: "3000" });
      const aId = await instanceOf(a.url);
      // A stays in its shutdown a while: a slow run is still going there.
      const slowThread = randomUUID();
      const slow = postRun(a.url, alice, runInput(slowThread, [userMessage("count slowly to 30")]))
        .then((res) => res.text())
        .catch(() => "cut");
      await runOnThread(b, carol, slowThread, "running");
      const to = `handoff-${randomUUID().slice(0, 6)}@example.com`;
      const threadId = randomUUID();
      const asked = await runTurn(AGUI_CLIENTS[0]!, {
        baseUrl: a.url,
        auth: alice,
        threadId,
        messages: [userMessage(`send an email to ${to} saying handed over`)],
      });
      const [gate] = interruptsOf(asked.events);

      const stopped = a.stop();
      await untilStopping(aId);
      const answeredAt = Date.now();
      const resumed = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: b, auth: alice, threadId, messages: [], resume: [approve(gate!.id)] });
      expect(Date.now() - answeredAt).toBeLessThan(TTL_MS);
      expect(runError(resumed.events)).toBeUndefined();
      expect(streamedText(resumed.events)).toBe(`Email sent to ${to}.`);
      const run = await runOf(gate!.metadata!.harbor!.runId);
      expect(run).toMatchObject({ status: "completed", instanceId: await instanceOf(b) });
      await stopped;
      await slow;
      expect(await sentTo(to)).toBe(1);
    }, 60_000);

    it("answers racing A's stop on A and on B: each gate decided once, none lost, each email sent once", async () => {
      const a = await cluster.add("racing", { HARBOR_DURABLE_WAITS: "approvals", HARBOR_SHUTDOWN_GRACE_MS: "400" });
      const gates: { to: string; id: string; runId: string }[] = [];
      for (let i = 0; i < 12; i++) {
        const to = `racing-${i}-${randomUUID().slice(0, 6)}@example.com`;
        const turn = await runTurn(AGUI_CLIENTS[0]!, {
          baseUrl: a.url,
          auth: alice,
          threadId: randomUUID(),
          messages: [userMessage(`send an email to ${to} saying raced`)],
        });
        const [gate] = interruptsOf(turn.events);
        gates.push({ to, id: gate!.id, runId: gate!.metadata!.harbor!.runId });
      }
      // A slow run keeps A in its stop through its grace period, and is then handed back.
      const slowThread = randomUUID();
      const slow = postRun(a.url, alice, runInput(slowThread, [userMessage("count slowly to 12")]))
        .then((res) => res.text())
        .catch(() => "cut");
      const slowRun = await runOnThread(b, carol, slowThread, "running");
      const stopped = a.stop();
      const startedAt = Date.now();
      // Each gate answered on the stopping instance and on another at once, a gate every 60 ms so
      // that the answers span A's whole stop: whichever way each goes (decided on A, forwarded to A,
      // given back by A, taken over on B), one decides and none is lost. A may also say it no longer
      // starts anything (INSTANCE_STOPPING, nothing done) or be gone mid-answer: the other answer decides.
      const answerOn = async (url: string, interactionId: string, afterMs: number) => {
        await new Promise((resolve) => setTimeout(resolve, afterMs));
        try {
          const answer = await trpcMutation(url, alice, "interactions.approve", { interactionId });
          return answer.error ? (answer.error.data.harborCode ?? answer.error.data.code) : "ok";
        } catch {
          return "CUT";
        }
      };
      const [onA, elsewhere] = await Promise.all([
        Promise.all(gates.map((g, i) => answerOn(a.url, g.id, i * 60))),
        Promise.all(gates.map((g, i) => answerOn(i % 2 ? b : c, g.id, i * 60))),
      ]);
      expect(onA.filter((code) => !["ok", "ALREADY_RESOLVED", "INSTANCE_STOPPING", "CUT"].includes(code))).toEqual([]);
      expect(elsewhere.filter((code) => !["ok", "ALREADY_RESOLVED"].includes(code))).toEqual([]);
      expect(Date.now() - startedAt).toBeLessThan(TTL_MS * 2);
      await stopped;
      for (const g of gates) {
        await expect.poll(() => runOf(g.runId).then((r) => `${r?.status} ${r?.error?.code ?? ""}`), { timeout: 10_000 }).toBe("completed ");
      }
      expect(await Promise.all(gates.map((g) => sentTo(g.to)))).toEqual(gates.map(() => 1));
      await expect.poll(() => runOf(slowRun).then((r) => r?.status), { timeout: 10_000 }).toBe("completed");
      expect(await countedIn(slowRun)).toEqual(oneTo(12));
      await slow;
    }, 90_000);

    it("a run queued on A behind another starts elsewhere as soon as its turn comes, not on A and not failed", async () => {
      const a = await cluster.add("queueing", { HARBOR_DURABLE_WAITS: "approvals", HARBOR_SHUTDOWN_GRACE_MS: "1000" });
      const aId = await instanceOf(a.url);
      const threadId = randomUUID();
      const first = postRun(a.url, alice, runInput(threadId, [userMessage("count slowly to 3")]))
        .then((res) => res.text())
        .catch(() => "cut");
      const firstRun = await runOnThread(b, carol, threadId, "running");
      // The same thread: it waits for the first run (double-texting's default, enqueue).
      const second = postRun(a.url, alice, runInput(threadId, [userMessage("count slowly to 12")]))
        .then((res) => res.text())
        .catch(() => "cut");
      const queued = await runOnThread(b, carol, threadId, "queued");
      expect(queued).not.toBe(firstRun);

      const stopped = a.stop();
      await untilStopping(aId);
      await expect.poll(() => runOf(firstRun).then((r) => r?.status), { timeout: 5_000 }).toBe("completed");
      // Its turn came as the first run ended: it starts on another instance at once.
      await expect.poll(() => runOf(queued).then((r) => r?.status), { timeout: 1_500, interval: 50 }).toBe("running");
      await expect.poll(() => runOf(queued).then((r) => r?.status), { timeout: 10_000 }).toBe("completed");
      expect((await runOf(queued))?.instanceId).not.toBe(aId);
      expect(await countedIn(queued)).toEqual(oneTo(12));
      await Promise.all([stopped, first, second]);
    }, 60_000);

    it("a run still executing when the grace period ends is handed back between steps and finishes elsewhere from its checkpoint", async () => {
      const a = await cluster.add("handing-back", { HARBOR_DURABLE_WAITS: "approvals", HARBOR_SHUTDOWN_GRACE_MS: "300" });
      const aId = await instanceOf(a.url);
      const threadId = randomUUID();
      const counting = postRun(a.url, alice, runInput(threadId, [userMessage("count slowly to 40")]))
        .then((res) => res.text())
        .catch(() => "cut");
      const runId = await runOnThread(b, carol, threadId, "running");
      const following = readSse(await trpcSubscribe(c, alice, "runs.events", { runId }), (f) => /"run\.(completed|failed)"/.test(f.data));
      await expect.poll(() => countedIn(runId).then((n) => n.length), { timeout: 5_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      await a.stop();
      await following;
      const run = await runOf(runId);
      expect(run).toMatchObject({ status: "completed", error: null });
      expect(run?.instanceId).not.toBe(aId);
      expect(await countedIn(runId)).toEqual(oneTo(40));
      const timeline = (await trpcQuery<{ event: { type: string } }[]>(b, carol, "runs.timeline", { runId })).data ?? [];
      expect(timeline.map((e) => e.event.type)).toContain("run.handed_off");
      expect(timeline.map((e) => e.event.type)).not.toContain("run.failed");
      await counting;
    }, 60_000);
  });
});

describe.skipIf(!hasPostgres)("a private form answered on another instance", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(2);
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("reaches its handler once, and the secret is in no NOTIFY payload, no table and no event", async () => {
    const [a, b] = cluster.instances.map((i) => i.url) as [string, string];
    const heard: string[] = [];
    const listener = new pg.Client({ connectionString: cluster.databaseUrl });
    await listener.connect();
    listener.on("notification", (n) => heard.push(`${n.channel}:${n.payload ?? ""}`));
    for (const channel of ["harbor_run_events", "harbor_interactions", "harbor_routes", "harbor_replies"])
      await listener.query(`LISTEN ${channel}`);
    try {
      const [cookie] = await signInAll(a, ["alice@acme.test"]);
      const alice: Auth = { cookie: cookie! };
      const threadId = randomUUID();
      const asked = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: a, auth: alice, threadId, messages: [userMessage("connect my api key")] });
      const [form] = interruptsOf(asked.events);
      const secret = `canary-${randomUUID()}`;
      const done = await runTurn(AGUI_CLIENTS[0]!, {
        baseUrl: b,
        auth: alice,
        threadId,
        messages: [],
        resume: [{ interruptId: form!.id, status: "resolved", payload: { apiKey: secret } }],
      });
      expect(streamedText(done.events)).toBe("API key connected.");
      expect(JSON.stringify(done.events)).not.toContain(secret);
      expect(heard.some((h) => h.startsWith("harbor_routes:"))).toBe(true);
      expect(heard.join("\n")).not.toContain(secret);
      const dump = await listener.query(
        "select string_agg(t::text, '') as everything from (select to_jsonb(r)::text as t from routed_requests r union all select to_jsonb(e)::text from run_events e union all select to_jsonb(m)::text from messages m union all select to_jsonb(i)::text from interactions i union all select to_jsonb(a)::text from audit_log a) rows",
      );
      expect(String(dump.rows[0]?.everything ?? "")).not.toContain(secret);
    } finally {
      await listener.end();
    }
  });
});

describe.skipIf(!hasPostgres)("durable waits of a killed instance", () => {
  let cluster: Cluster;
  let idp: RunningIdentityProvider;
  let victim: RunningServer;
  let survivor: RunningServer;

  beforeAll(async () => {
    // One identity provider for the deployment (as a real one would be), knowing both instances' callbacks.
    const [victimPort, survivorPort] = [await freePort(), await freePort()];
    const callback = (port: number) => `http://127.0.0.1:${port}/api/oauth/callback/calendar`;
    idp = await startIdentityProvider({
      client: { clientId: "harbor-cluster", clientSecret: "cluster-secret", redirectUris: [callback(victimPort), callback(survivorPort)] },
      accounts: [{ id: "user-alice", email: "alice@acme.test", name: "Alice", password: "harbor" }],
    });
    cluster = await startCluster(0, {
      HARBOR_OAUTH_ISSUER: idp.issuer,
      HARBOR_OAUTH_CLIENT_ID: "harbor-cluster",
      HARBOR_OAUTH_CLIENT_SECRET: "cluster-secret",
      HARBOR_CALENDAR_URL: idp.calendarUrl,
      HARBOR_RESEARCH_MS: "1500",
      HARBOR_JOB_LEASE_MS: "1000",
    });
    victim = await cluster.add("victim-durable", { PORT: String(victimPort) });
    survivor = await cluster.add("survivor-durable", { PORT: String(survivorPort) });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await idp?.close();
  });

  it("after SIGKILL: the background job completes exactly once elsewhere, and the OAuth consent completes on the survivor", async () => {
    const [cookie] = await signInAll(victim.url, ["alice@acme.test"]);
    const alice: Auth = { cookie: cookie! };
    const researchThread = randomUUID();
    const research = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: victim.url,
      auth: alice,
      threadId: researchThread,
      messages: [userMessage("research tides")],
    });
    const [wait] = customEvents(research.events, "harnest.external_wait") as { responseId: string }[];
    const calendarThread = randomUUID();
    const asked = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: victim.url,
      auth: alice,
      threadId: calendarThread,
      messages: [userMessage("check my calendar")],
    });
    const [consent] = interruptsOf(asked.events);
    expect(consent?.reason).toBe("oauth");
    await victim.kill();

    // The job: its lease runs out and the survivor finishes it, once.
    await expect
      .poll(
        async () =>
          (await trpcQuery<{ status: string }>(survivor.url, alice, "responses.get", { responseId: wait!.responseId })).data?.status,
        {
          timeout: 20_000,
        },
      )
      .toBe("completed");
    const researched = (
      await trpcQuery<{ messages: { role: string; content: string }[] }>(survivor.url, alice, "threads.get", { threadId: researchThread })
    ).data;
    expect(researched?.messages.filter((m) => m.content.startsWith("Research on tides is done."))).toHaveLength(1);

    // The consent: started on the survivor (Harbor's connect URL there), completed by its callback.
    const connect = await fetch(`${survivor.url}/api/oauth/connect/${consent!.id}`, {
      headers: { cookie: alice.cookie },
      redirect: "manual",
    });
    expect(connect.status).toBe(302);
    const nonce = connect.headers
      .getSetCookie()
      .find((c) => c.startsWith("harbor_oauth_"))!
      .split(";")[0]!;
    const callbackUrl = await consentAt(
      connect.headers.get("location")!,
      { email: "alice@acme.test", password: "harbor" },
      {
        callbackPrefix: `${survivor.url}/api/oauth/callback/calendar`,
      },
    );
    const landed = await fetch(callbackUrl, { headers: { cookie: `${alice.cookie}; ${nonce}` }, redirect: "manual" });
    expect(landed.status).toBe(200);
    await expect
      .poll(
        async () =>
          (
            await trpcQuery<{ messages: { role: string; content: string }[] }>(survivor.url, alice, "threads.get", {
              threadId: calendarThread,
            })
          ).data?.messages.at(-1)?.content,
        {
          timeout: 15_000,
        },
      )
      .toMatch(/^Today \(/);
  }, 90_000);
});
