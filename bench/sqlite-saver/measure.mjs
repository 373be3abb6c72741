// LangGraph.js's SqliteSaver on the work of Harbor's "gate only" cycle (bench/park-resume.ts,
// measureGateCycles): a waiting run is answered and stops at a new gate at once, one cycle at a
// time. Here a graph of one node that calls interrupt() loops on itself, checkpointed by a
// SqliteSaver on a file in a fresh folder (durable, like the embedded database's folder); each
// cycle is one invoke with Command({ resume }) that resumes the node and interrupts again. A thread
// is answered ten times (the tenth answer ends it), then a new thread starts, as Harbor's does.
//
//   node bench/sqlite-saver/measure.mjs <seconds>   → one JSON line on stdout
//
// Plain JavaScript in a package of its own, run as a child process by `npm run bench`: LangGraph
// and its native SQLite binding never load into Harbor, and Harbor's `npm ci` never installs them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Annotation, Command, END, START, StateGraph, interrupt } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";

/** As GATE_CYCLES_PER_RUN in bench/park-resume.ts. */
const CYCLES_PER_THREAD = 10;

const State = Annotation.Root({
  answers: Annotation({ reducer: (_, next) => next, default: () => 0 }),
});

/** Asks again and again (Harbor's RequestPause): each answer is counted, then the node asks anew. */
const gatekeeper = new StateGraph(State)
  .addNode("gate", (state) => {
    interrupt("Go on?");
    return { answers: state.answers + 1 };
  })
  .addEdge(START, "gate")
  .addConditionalEdges("gate", (state) => (state.answers < CYCLES_PER_THREAD ? "gate" : END));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Cycles for `seconds` on `graph`, one at a time; a cycle whose result is not what it should be is a failure. */
async function drive(graph, seconds) {
  const latencies = [];
  let failures = 0;
  let thread;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    if (!thread) {
      thread = { configurable: { thread_id: randomUUID() } };
      const first = await graph.invoke({ answers: 0 }, thread);
      if (!first.__interrupt__?.length) {
        failures++;
        thread = undefined;
        continue;
      }
    }
    const t0 = performance.now();
    const next = await graph.invoke(new Command({ resume: { approved: true } }), thread);
    const ms = performance.now() - t0;
    const waiting = next.__interrupt__?.length > 0;
    if (waiting === next.answers >= CYCLES_PER_THREAD) {
      failures++;
      thread = undefined;
      continue;
    }
    latencies.push(ms);
    if (!waiting) thread = undefined;
  }
  const elapsedMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    cyclesPerSecond: latencies.length / (elapsedMs / 1000),
    cycles: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
  };
}

async function main() {
  const seconds = Number(process.argv[2] ?? 8);
  if (!(seconds > 0)) throw new Error(`seconds must be a positive number, not ${process.argv[2]}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-bench-sqlite-saver-"));
  const saver = SqliteSaver.fromConnString(path.join(dir, "checkpoints.db"));
  try {
    const graph = gatekeeper.compile({ checkpointer: saver });
    await drive(graph, 1); // warm-up, as Harbor's cycles get
    const result = await drive(graph, seconds);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    saver.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
