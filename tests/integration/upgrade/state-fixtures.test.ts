/**
 * State as earlier releases wrote it (tests/fixtures/state/<release>/, captured by the upgrade
 * test), loaded into a fresh database of each engine and answered by the current code: every run's
 * checkpoint and every stored event reads, and the work each release left waiting goes on — each
 * effect once. A new release adds its folder; old ones stay.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import type { DatabaseHandle } from "@/server/db/client";
import { listOutbox } from "@/server/db/queries/outbox";
import { findRun, listRunEvents } from "@/server/db/queries/runs";
import type { Runtime } from "@/server/runtime";
import { queryRows, testBackends } from "../../helpers/backends";
import { ALICE, BOB, CAROL, started, testRuntime, watchUntil } from "../../helpers/runtime";
import { FIXTURES_DIR, loadState, readLeft, readStateMeta } from "../../helpers/state-fixtures";
import type { LeftBehind } from "../../helpers/upgrade-scenario";
import { sql } from "drizzle-orm";

type Waiting = Omit<LeftBehind, "alice" | "bob" | "carol">;

const releases = fs.readdirSync(FIXTURES_DIR).filter((name) => fs.existsSync(`${FIXTURES_DIR}/${name}/meta.json`));
const cases = releases.flatMap((release) => testBackends().map((backend) => ({ release, engine: backend.name })));

describe.each(cases)("what $release left waiting, on $engine", ({ release, engine }) => {
  const meta = readStateMeta(release);
  const left = readLeft<Waiting>(release);
  let handle: DatabaseHandle;
  let runtime: Runtime;

  beforeAll(async () => {
    handle = await loadState(engine, release);
    runtime = testRuntime(handle.db, {
      serverSecret: meta.authSecret,
      agents: createAgents({ researchMs: 200 }),
      durableWaits: ["approval"],
    });
    // As a deploy starts: it takes over what the stopped release held, and works on its jobs.
    await runtime.start();
  }, 60_000);
  afterAll(async () => {
    runtime?.close();
    await runtime?.idle();
    await handle?.close();
  });

  const sent = async (to: string) =>
    (await listOutbox(handle.db, { tenantId: "tenant-acme", userId: "user-alice" })).filter((r) => r.details.to === to);

  it("reads every run's checkpoint and every stored event", async () => {
    const runs = await queryRows<{ id: string }>(handle.db, sql`select id from runs`);
    expect(runs.length).toBeGreaterThan(0);
    for (const { id } of runs) {
      expect(await findRun(handle.db, id)).toBeDefined();
      expect((await listRunEvents(handle.db, id)).length).toBeGreaterThan(0);
    }
  });

  it("sends the email its owner approves now, once", async () => {
    const { continued } = await runtime.interactions.decide(ALICE, left.email.id, true);
    expect(continued).toHaveLength(1);
    await watchUntil(runtime, continued[0]!, (e) => e.type === "run.completed", ALICE);
    expect(await sent(left.email.to)).toHaveLength(1);
  });

  it("completes the quorum with the vote cast before: the gate is not asked again", async () => {
    const { continued } = await runtime.interactions.decide(CAROL, left.quorum.id, true);
    expect(continued).toHaveLength(1);
    await watchUntil(runtime, continued[0]!, (e) => e.type === "run.completed", ALICE);
    expect((await sent(left.quorum.to)).filter((r) => r.kind === "transfer")).toHaveLength(1);
  });

  it("decides a routed gate from the inbox", async () => {
    const { continued } = await runtime.interactions.decide(BOB, left.linked.id, true);
    await watchUntil(runtime, continued[0]!, (e) => e.type === "run.completed", ALICE);
    expect(await sent(left.linked.to)).toHaveLength(1);
  });

  it("lets the same email through on the standing approval given before", async () => {
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId: `after-${release}`,
        transportRunId: `after-${release}`,
        messages: [{ id: `after-${release}-m`, role: "user", content: `send an email to ${left.granted.to} saying again` }],
      }),
    );
    const events = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed" || e.type === "run.paused", ALICE);
    expect(events.at(-1)?.type).toBe("run.completed");
    expect(events.some((e) => e.type === "grant.used")).toBe(true);
    expect(await sent(left.granted.to)).toHaveLength(2);
  });

  it("finishes the research it left running and goes on with its run", async () => {
    await expect
      .poll(async () => (await runtime.responses.get(ALICE, left.research.responseId)).status, { timeout: 20_000 })
      .toBe("completed");
    const job = await queryRows<{ run_id: string }>(handle.db, sql`select run_id from jobs where id = ${left.research.responseId}`);
    await expect.poll(async () => (await findRun(handle.db, job[0]!.run_id))?.status, { timeout: 20_000 }).toBe("completed");
  });
});
