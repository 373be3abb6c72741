/**
 * A gate answered on the process that parked it is checked against the copy that process kept (no
 * read before the claim). What another process did to the gate meanwhile still decides: the claim
 * loses, and the answer is refused for what the gate became — and nobody else's gate is reachable.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { HarborError, type Runtime } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, BOB, drain, MALLORY, started, testRuntime } from "../../../helpers/runtime";

describe.each(testBackends())("answering a gate parked here, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let counter = 0;
  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents(), sweepIntervalMs: 600_000 });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  async function parkEmail(): Promise<string> {
    const threadId = `parked-gates-${++counter}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "concierge",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: "send an email to parked@example.com saying hi" }],
      }),
    );
    const last = (await drain(run.events)).at(-1)?.event;
    if (last?.type !== "run.paused" || !last.interrupts[0]) throw new Error(`expected a gate, got ${last?.type}`);
    return last.interrupts[0].id;
  }
  const codeOf = async (work: Promise<unknown>) => {
    try {
      await work;
      return "ok";
    } catch (error) {
      return HarborError.is(error) ? error.code : String(error);
    }
  };

  it("refuses someone else's gate exactly as before: another tenant sees nothing, another member may not decide", async () => {
    const id = await parkEmail();
    expect(await codeOf(runtime.interactions.decide(MALLORY, id, true))).toBe("NOT_FOUND");
    expect(await codeOf(runtime.interactions.decide(BOB, id, true))).toBe("FORBIDDEN");
    expect(await codeOf(runtime.interactions.decide(ALICE, id, true))).toBe("ok");
  });

  it("a gate another process cancelled meanwhile is refused as already answered, and nothing runs", async () => {
    const id = await parkEmail();
    await database.db.execute(sql`update interactions set status = 'cancelled', resolved_at = now() where id = ${id}`);
    expect(await codeOf(runtime.interactions.decide(ALICE, id, true))).toBe("ALREADY_RESOLVED");
    const sent = await queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from outbox o join interactions i on i.run_id = o.run_id where i.id = ${id}`,
    );
    expect(sent[0]?.n).toBe(0);
  });

  it("a gate another process expired meanwhile is refused as expired", async () => {
    const id = await parkEmail();
    await database.db.execute(sql`update interactions set status = 'expired', resolved_at = now() where id = ${id}`);
    expect(await codeOf(runtime.interactions.decide(ALICE, id, true))).toBe("EXPIRED");
  });

  it("a second answer to a gate is refused once the first won", async () => {
    const id = await parkEmail();
    const answers = await Promise.all([
      codeOf(runtime.interactions.decide(ALICE, id, true)),
      codeOf(runtime.interactions.decide(ALICE, id, true)),
    ]);
    expect(answers.sort()).toEqual(["ALREADY_RESOLVED", "ok"]);
  });
});
