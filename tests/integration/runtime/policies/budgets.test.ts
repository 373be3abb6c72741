/**
 * Model token budgets, against a scripted model server that counts the requests it gets: a budget
 * is checked before each model request, not after — at 80 % the run's log warns (once), at 100 %
 * the run ends BUDGET_EXCEEDED and the model is not asked; tenants' and users' budgets, per day,
 * counted from the tokens the model reported; admins set them (audited), members see their own usage.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { listAudit } from "@/server/db/queries/audit";
import { HarborError, type Runtime, type VerifiedIdentity } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { startModelServer, type ModelServer } from "../../../helpers/model-server";
import { ALICE, BOB, CAROL, drain, MALLORY, started, testRuntime } from "../../../helpers/runtime";

/** Each model request reports 20 + 5 tokens. */
const PER_REQUEST = 25;

describe.each(testBackends())("model budgets on $name", (backend) => {
  const h = useSeededDatabase(backend);
  let model: ModelServer;
  let runtime: Runtime;

  beforeAll(async () => {
    model = await startModelServer(() => ({ text: "Fine.", usage: { prompt: 20, completion: 5 } }));
    runtime = testRuntime(h.db, {
      agents: createAgents({ model: { baseUrl: model.baseUrl, model: "scripted", maxRetries: 0, timeoutMs: 10_000 } }),
    });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await model.close();
  });

  /** One message to the assistant: its logged events. */
  const ask = async (who: VerifiedIdentity) =>
    drain(
      started(
        await runtime.startRun(who, {
          agentId: "assistant",
          threadId: randomUUID(),
          transportRunId: randomUUID(),
          messages: [{ id: randomUUID(), role: "user", content: "hello" }],
        }),
      ).events,
    );

  it("warns at 80 %, then ends the run BUDGET_EXCEEDED before the request at 100 %: the model is not asked", async () => {
    await runtime.budgets.set(CAROL, { tenantDaily: 60, tenantMonthly: null, userDaily: null, userMonthly: null });
    const asked = () => model.requests.length;
    const before = asked();

    const first = await ask(ALICE); // 0 of 60 used: asked; 25 used
    expect(first.some((e) => e.event.type === "budget.warning")).toBe(false);
    const second = await ask(BOB); // 25: asked; 50 used
    expect(second.some((e) => e.event.type === "budget.warning")).toBe(false);
    const third = await ask(ALICE); // 50 of 60 (83 %): warned, asked; 75 used
    expect(third.find((e) => e.event.type === "budget.warning")?.event).toEqual({
      type: "budget.warning",
      scope: "tenant",
      period: "day",
      used: 2 * PER_REQUEST,
      limit: 60,
    });
    expect(third.at(-1)?.event.type).toBe("run.completed");
    expect(asked()).toBe(before + 3);

    const fourth = await ask(BOB); // 75 of 60: refused before the request
    expect(fourth.at(-1)?.event).toMatchObject({ type: "run.failed", code: "BUDGET_EXCEEDED" });
    expect(asked()).toBe(before + 3);
    // Another tenant's budget is its own.
    expect((await ask(MALLORY)).at(-1)?.event.type).toBe("run.completed");
  });

  it("keeps each user to their own budget, and counts what the model reported per user", async () => {
    await runtime.budgets.set(CAROL, { tenantDaily: 0, tenantMonthly: 0, userDaily: null, userMonthly: 2 * PER_REQUEST });
    // Alice already spent 50 this month: she is stopped; Carol has spent nothing and is not.
    expect((await ask(ALICE)).at(-1)?.event).toMatchObject({ type: "run.failed", code: "BUDGET_EXCEEDED" });
    expect((await ask(CAROL)).at(-1)?.event.type).toBe("run.completed");

    const mine = await runtime.budgets.view(ALICE);
    expect(mine.usage).toEqual([
      {
        userId: "user-alice",
        email: "alice@acme.test",
        day: { inputTokens: 40, outputTokens: 10, requests: 2 },
        month: { inputTokens: 40, outputTokens: 10, requests: 2 },
      },
    ]);
    const all = await runtime.budgets.view(CAROL);
    expect(all.usage.map((u) => u.userId).sort()).toEqual(["user-alice", "user-bob", "user-carol"]);
    expect(all.limits).toMatchObject({ tenantDaily: 0, userMonthly: 50 });
  });

  it("lets only admins set budgets, and audits each change", async () => {
    await expect(runtime.budgets.set(ALICE, { tenantDaily: 1, tenantMonthly: null, userDaily: null, userMonthly: null })).rejects.toSatisfy(
      (e: unknown) => HarborError.is(e) && e.code === "FORBIDDEN",
    );
    const audit = await listAudit(h.db, "tenant-acme", { type: "tenant", id: "tenant-acme" });
    const changes = audit.filter((a) => a.action === "budget.set");
    expect(changes).toHaveLength(2);
    expect(changes.map((c) => c.details)).toContainEqual(expect.objectContaining({ to: expect.objectContaining({ userMonthly: 50 }) }));
  });
});
