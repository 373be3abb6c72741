/**
 * A reply streamed at a pace just before a gate: its text goes out in its own write before the
 * park, so a gate answered the moment it exists cannot overtake it — a live reader sees every
 * event up to the pause, in order, exactly as stored.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { tool, type Planner, type Runtime, type ToolDefinition } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { agentOf, ALICE, started, testRuntime } from "../../../helpers/runtime";

const pay: ToolDefinition = tool({
  name: "pay",
  description: "pays",
  input: z.strictObject({ amount: z.number() }),
  output: z.strictObject({ paid: z.number() }),
  approval: { policy: "owner", describe: ({ amount }) => `Pay ${amount}` },
  execute: async ({ amount }) => ({ paid: amount }),
});

const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
/** Says a long text, then asks to pay; finishes after the payment. */
const sayThenPay: Planner = {
  next(state) {
    const last = state.transcript.at(-1);
    if (last?.role === "user") return { type: "say", text: words };
    if (last?.role === "assistant" && !last.toolCalls) return { type: "call_tools", calls: [{ name: "pay", args: { amount: 5 } }] };
    return { type: "finish" };
  },
};

describe.each(testBackends())("a paced reply before a gate, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    const agents = new Map([["payer", agentOf("payer", sayThenPay, new Map([["pay", pay]]))]]);
    runtime = testRuntime(database.db, { agents, streamChunkMs: 20 });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  it("is seen whole by a live reader even when the gate is answered the moment it exists", async () => {
    const threadId = `paced-${backend.name}`;
    const run = started(
      await runtime.startRun(ALICE, {
        agentId: "payer",
        threadId,
        transportRunId: threadId,
        messages: [{ id: `${threadId}-m`, role: "user", content: "go" }],
      }),
    );
    const seen: { seq: number; type: string }[] = [];
    const reading = (async () => {
      for await (const batch of run.events) for (const e of batch) seen.push({ seq: e.seq, type: e.event.type });
    })();
    // An approver watching the table (an inbox, a decision link) answers as soon as the row exists.
    let gate: string | undefined;
    for (const deadline = Date.now() + 10_000; !gate && Date.now() < deadline;) {
      [gate] = (
        await queryRows<{ id: string }>(database.db, sql`select id from interactions where thread_id = ${threadId} and status = 'pending'`)
      ).map((r) => r.id);
      if (!gate) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await runtime.interactions.decide(ALICE, gate!, true);
    await reading;
    await runtime.idle();
    const stored = await queryRows<{ seq: number; type: string }>(
      database.db,
      sql`select seq, type from run_events where run_id = ${run.runId} order by seq`,
    );
    const paused = stored.find((e) => e.type === "run.paused")!;
    expect(seen.filter((e) => e.seq <= paused.seq)).toEqual(stored.filter((e) => e.seq <= paused.seq));
    expect(seen.filter((e) => e.type === "text.delta")).toHaveLength(60);
  });
});
