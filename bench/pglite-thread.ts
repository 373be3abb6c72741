/**
 * The embedded database in the server's thread vs on a worker thread of its own (issue 17, point 2):
 * the same in-process cycles, and the same park → resume cycles and chat turns over HTTP against
 * `next start`, on both shapes, same run, printed as a ratio.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../server/db/client";
import { seedDemo } from "../server/db/seed";
import { gateAndEmailCycles, measureOverHttp, type CycleResult } from "./park-resume";
import { chatBody, measure } from "./chat-turn";
import { startServer } from "../tests/helpers/server";
import { createToken, signIn } from "../tests/helpers/http";

/** Cycles and chat turns over HTTP on a server whose embedded database runs in `thread` or not. */
async function overHttp({ thread, prepared }: Shape, seconds: number): Promise<CycleResult[]> {
  const server = await startServer(
    {
      HARBOR_PGLITE_THREAD: thread ? "1" : "0",
      HARBOR_PGLITE_PREPARED: prepared ? "1" : "0",
      HARBOR_STREAM_CHUNK_MS: "0",
      HARBOR_MAX_ACTIVE_RUNS_PER_USER: "100",
      LOG_LEVEL: "warn",
    },
    "bench-thread",
  );
  try {
    const { token } = await createToken(server.url, await signIn(server.url, "alice@acme.test"), "bench");
    const results: CycleResult[] = [];
    for (const inFlight of [1, 50]) {
      await measureOverHttp(server.url, token, inFlight, 1);
      results.push(await measureOverHttp(server.url, token, inFlight, seconds));
    }
    for (const connections of [1, 50]) {
      const turn = () =>
        measure({
          label: "chat turn",
          url: `${server.url}/api/agents/concierge/runs`,
          headers: { authorization: `Bearer ${token}` },
          connections,
          seconds,
          body: chatBody,
        });
      await turn();
      const r = await turn();
      results.push({
        label: "chat turns over HTTP",
        inFlight: connections,
        cyclesPerSecond: r.turnsPerSecond,
        park: { p50: r.p50, p99: r.p99 },
        resume: { p50: 0, p99: 0 },
        failures: r.failures,
      });
    }
    return results;
  } finally {
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
}

interface Shape {
  label: string;
  thread: boolean;
  prepared: boolean;
}
const SHAPES: Shape[] = [
  { label: "server's thread, each statement planned anew (before)", thread: false, prepared: false },
  { label: "server's thread, prepared statements", thread: false, prepared: true },
  { label: "own thread, prepared statements", thread: true, prepared: true },
];

async function inProcess({ thread, prepared }: Shape, seconds: number): Promise<CycleResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-bench-thread-"));
  const handle = await openDatabase({ engine: "pglite", dataDir: dir, thread, prepared });
  try {
    await seedDemo(handle.db);
    return await gateAndEmailCycles(handle.db, seconds);
  } finally {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints each shape's cycles and its ratio to the first (before) shape, same run. */
export async function pgliteThreadComparison(seconds: number): Promise<void> {
  const results: CycleResult[][] = [];
  for (const shape of SHAPES) results.push([...(await inProcess(shape, seconds)), ...(await overHttp(shape, seconds))]);
  console.log("The embedded database's shapes (cycles or turns per second, same run; ratio to the first)");
  SHAPES.forEach((shape, i) => console.log(`  [${i + 1}] ${shape.label}`));
  for (const [row, first] of results[0]!.entries()) {
    const cells = results.map((r, i) => {
      const x = r[row]!;
      return `[${i + 1}] ${x.cyclesPerSecond.toFixed(0).padStart(5)}${i > 0 ? ` (${(x.cyclesPerSecond / first.cyclesPerSecond).toFixed(2)}×)` : "        "}`;
    });
    const failures = results.map((r) => r[row]!.failures).join("/");
    console.log(`  ${first.label.padEnd(26)} ${String(first.inFlight).padStart(2)}: ${cells.join("  ")}  failures ${failures}`);
  }
  console.log();
}
