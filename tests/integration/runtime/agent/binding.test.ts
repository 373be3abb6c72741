/**
 * Approvals bind what was approved: the call's arguments, its tool's version and its agent's
 * declared version. When any changed before the gated call runs, the call asks again instead of
 * running; a change to anything else (another tool, the tool's description) re-asks nothing.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { findRun } from "@/server/db/queries/runs";
import { tool, type AgentDefinition, type InterruptView, type Planner, type Runtime, type ToolDefinition } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { agentOf, ALICE, drain, started, testRuntime, watchUntil } from "../../../helpers/runtime";

const paid: string[] = [];

const payTool = (version: string | undefined, description = "pays an amount"): ToolDefinition =>
  tool({
    name: "pay",
    ...(version ? { version } : {}),
    description,
    input: z.strictObject({ amount: z.number() }),
    output: z.strictObject({ paid: z.number(), version: z.string() }),
    approval: { policy: "owner", describe: ({ amount }) => `Pay ${amount}` },
    async execute({ amount }) {
      paid.push(`${version ?? "digest"}:${amount}`);
      return { paid: amount, version: version ?? "digest" };
    },
  });

const payer: Planner = {
  next(state) {
    const last = state.transcript.at(-1);
    if (last?.role === "user") return { type: "call_tools", calls: [{ name: "pay", args: { amount: Number(last.content) } }] };
    if (last?.role === "tool") return { type: "say", text: `done: ${last.content}` };
    return { type: "finish" };
  },
};

describe.each(testBackends())("approvals bound to what was approved, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  const tools = new Map<string, ToolDefinition>();
  const agent: AgentDefinition = agentOf("payer", payer, tools);
  let runtime: Runtime;
  let counter = 0;
  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: new Map([["payer", agent]]) });
  });
  beforeEach(() => {
    paid.length = 0;
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  async function ask(amount: number): Promise<{ runId: string; gate: InterruptView }> {
    const threadId = `b-${++counter}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "payer",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: String(amount) }],
      }),
    );
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error(`expected a gate, got ${last.type}`);
    return { runId: run.runId, gate: last.interrupts[0]! };
  }
  const approve = (id: string) => runtime.interactions.decide(ALICE, id, true);
  /** The run's next gate after the `answered` ones, or undefined once it completes instead. */
  const nextGate = async (runId: string, ...answered: InterruptView[]) => {
    const known = new Set(answered.map((g) => g.id));
    const events = await watchUntil(
      runtime,
      runId,
      (e) => e.type === "run.completed" || (e.type === "run.paused" && !known.has(e.interrupts[0]?.id ?? "")),
    );
    const last = events.at(-1)!;
    return last.type === "run.paused" ? last.interrupts[0] : undefined;
  };

  it("runs the approved call when nothing changed", async () => {
    tools.set("pay", payTool("1"));
    const { runId, gate } = await ask(10);
    await approve(gate.id);
    expect(await nextGate(runId, gate)).toBeUndefined();
    expect(paid).toContain("1:10");
  });

  it("asks again when the tool's version changed while the run was parked, and runs the new version once approved", async () => {
    tools.set("pay", payTool("1"));
    const { runId, gate } = await ask(20);
    tools.set("pay", payTool("2"));
    await approve(gate.id);
    const again = await nextGate(runId, gate);
    expect(again?.message).toBe("Pay 20 (changed since it was approved: please decide again)");
    expect(again?.id).not.toBe(gate.id);
    expect(paid.filter((p) => p.endsWith(":20"))).toEqual([]);
    expect((await findRun(database.db, runId))?.status).toBe("paused");
    await approve(again!.id);
    expect(await nextGate(runId, gate, again!)).toBeUndefined();
    expect(paid.filter((p) => p.endsWith(":20"))).toEqual(["2:20"]);
  });

  it("asks again when the arguments in the parked run's checkpoint are not the ones approved", async () => {
    tools.set("pay", payTool("1"));
    const { runId, gate } = await ask(30);
    await database.db.execute(
      sql`update runs set checkpoint = jsonb_set(checkpoint, '{calls,0,args,amount}', '3000'::jsonb) where id = ${runId}`,
    );
    await approve(gate.id);
    const again = await nextGate(runId, gate);
    expect(again?.message).toBe("Pay 3000 (changed since it was approved: please decide again)");
    expect(paid.filter((p) => p.endsWith(":3000") || p.endsWith(":30"))).toEqual([]);
  });

  it("runs the approved call when another tool of the agent changed while the run was parked", async () => {
    tools.set("pay", payTool("1"));
    const { runId, gate } = await ask(40);
    tools.set("refund", { ...payTool("7"), name: "refund" });
    try {
      await approve(gate.id);
      expect(await nextGate(runId, gate)).toBeUndefined();
      expect(paid).toEqual(["1:40"]);
    } finally {
      tools.delete("refund");
    }
  });

  it("runs the approved call when only the tool's description changed", async () => {
    tools.set("pay", payTool(undefined, "pays an amount"));
    const { runId, gate } = await ask(50);
    tools.set("pay", payTool(undefined, "pays an amount, in euros"));
    await approve(gate.id);
    expect(await nextGate(runId, gate)).toBeUndefined();
    expect(paid).toEqual(["digest:50"]);
  });

  it("honours an approval pending from a release before bindings were versioned, while its tool is unchanged", async () => {
    tools.set("pay", payTool("1"));
    const { runId, gate } = await ask(60);
    // The call as that release stored it (version 1): a bare digest of the arguments, the tool's
    // version, and a digest of the agent's every tool.
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    const agentDigest = sha256(JSON.stringify({ id: "payer", tools: [["pay", "1"]] }));
    const legacy = sha256(JSON.stringify({ agent: agentDigest, args: { amount: 60 }, tool: "1" }));
    await database.db.execute(
      sql`update runs set checkpoint = jsonb_set(jsonb_set(checkpoint, '{calls,0,gate,binding}', to_jsonb(${legacy}::text)), '{calls,0,v}', '1') where id = ${runId}`,
    );
    await approve(gate.id);
    expect(await nextGate(runId, gate)).toBeUndefined();
    expect(paid).toEqual(["1:60"]);
  });
});
