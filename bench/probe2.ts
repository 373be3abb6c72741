import { performance } from "node:perf_hooks";
import { createAgents } from "../server/agents";
import { openDatabase } from "../server/db/client";
import { seedDemo } from "../server/db/seed";
import { startModelServer } from "../tests/helpers/model-server";
import { TEST_SECRET, testRuntime } from "../tests/helpers/runtime";

async function main() {
  const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
  const model = await startModelServer(() => ({ text: words }));
  const handle = await openDatabase({ engine: "pglite", dataDir: require("node:fs").mkdtempSync("/tmp/probe-pg-") });
  await seedDemo(handle.db);
  const runtime = testRuntime(handle.db, {
    agents: createAgents(handle.db, TEST_SECRET, { model: { baseUrl: model.baseUrl, model: "scripted" } }),
  });
  const alice = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] as const };
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    const run = await runtime.startRun(
      { ...alice, roles: ["member"] },
      {
        agentId: "assistant",
        threadId: `p-${i}`,
        transportRunId: `p-${i}`,
        messages: [{ id: `pm-${i}`, role: "user", content: "tell me" }],
      },
    );
    const marks = [`started ${(performance.now() - t0).toFixed(1)}`];
    if ("refused" in run) throw new Error("refused");
    const seen = new Set<string>();
    for await (const batch of run.events)
      for (const e of batch)
        if (!seen.has(e.event.type)) {
          seen.add(e.event.type);
          marks.push(`${e.event.type} ${(performance.now() - t0).toFixed(1)}`);
        }
    console.log(marks.join(" | "));
  }
  runtime.close();
  await runtime.idle();
  await handle.close();
  await model.close();
}
void main();
