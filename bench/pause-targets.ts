/**
 * Issue 17's targets for the cost of a pause, each printed with what it was measured against in
 * the same run (the durable floor, the bare SSE route) or its fixed mark, the ratio and a verdict.
 */
import type { LoadResult } from "./chat-turn";
import type { FloorResult } from "./durable-floor";
import type { CycleResult } from "./park-resume";
import type { SaverMeasurement } from "./sqlite-saver";

export type Engine = "pglite" | "postgres";

/** Issue 17: a chat turn at 50 clients against the bare SSE route of the same server. */
export const chatTurnGoal = (engine: Engine): number => (engine === "pglite" ? 0.3 : 0.5);

export interface PauseCost {
  /** In-process email cycles and gate-only cycles, at 1 and 50 in flight. */
  inProcess: CycleResult[];
  /** Park → resume cycles over HTTP, at 1 and 50 threads. */
  httpCycles: CycleResult[];
  /** Chat turns and the bare SSE route of the same server, at 1 and 50 clients. */
  turns: LoadResult[];
  heap?: { count: number; bytesPerRun: number };
  /** LangGraph.js 1.7.3's SqliteSaver on the gate cycle's work, sequential, measured in this run (PGlite only). */
  sqliteSaver?: SaverMeasurement;
}

interface Target {
  what: string;
  measured: number;
  /** What it is measured against, in words, and its value. */
  against: string;
  base: number;
  /** The ratio measured / base must reach this (or, with `atMost`, stay under it). */
  goal: number;
  atMost?: boolean;
}

const EMAIL = "in-process";
const GATE = "gate only";

function targetsOf(engine: Engine, cost: PauseCost, floor: FloorResult[]): Target[] {
  const name = engine === "pglite" ? "PGlite" : "PostgreSQL";
  const floorAt = (inFlight: number) => floor.find((f) => f.engine === engine && f.inFlight === inFlight);
  const targets: Target[] = [];
  for (const [prefix, goal, label] of [
    [EMAIL, 0.25, "email cycle"],
    [GATE, 0.5, "gate only"],
  ] as const) {
    for (const r of cost.inProcess.filter((c) => c.label.startsWith(prefix))) {
      const base = floorAt(r.inFlight);
      if (!base) continue;
      targets.push({
        what: `${name} ${label}, in-process, ${r.inFlight} in flight`,
        measured: r.cyclesPerSecond,
        against: `durable floor ${base.cyclesPerSecond.toFixed(0)}/s`,
        base: base.cyclesPerSecond,
        goal,
      });
    }
  }
  const sequentialGate = cost.inProcess.find((c) => c.label.startsWith(GATE) && c.inFlight === 1);
  if (engine === "pglite" && sequentialGate) {
    const saver = cost.sqliteSaver && "measured" in cost.sqliteSaver ? cost.sqliteSaver.measured.cyclesPerSecond : undefined;
    targets.push({
      what: "PGlite gate only, sequential, ≥ 400/s",
      measured: sequentialGate.cyclesPerSecond,
      against: "400/s",
      base: 400,
      goal: 1,
    });
    if (saver !== undefined) {
      targets.push({
        what: "  … against LangGraph's SqliteSaver, same run",
        measured: sequentialGate.cyclesPerSecond,
        against: `SqliteSaver ${saver.toFixed(0)}/s`,
        base: saver,
        goal: 1,
      });
    }
  }
  const http = cost.httpCycles.find((c) => c.inFlight === 50);
  const httpGoal = engine === "pglite" ? 150 : 400;
  if (http) {
    targets.push({
      what: `${name} over HTTP, 50 threads`,
      measured: http.cyclesPerSecond,
      against: `${httpGoal}/s`,
      base: httpGoal,
      goal: 1,
    });
  }
  const bare = cost.turns.find((t) => t.connections === 50 && t.label.startsWith("bare"));
  const chat = cost.turns.find((t) => t.connections === 50 && t.label.startsWith("Harbor"));
  if (bare && chat) {
    targets.push({
      what: `${name} chat turn, 50 clients`,
      measured: chat.turnsPerSecond,
      against: `bare SSE route ${bare.turnsPerSecond.toFixed(0)}/s`,
      base: bare.turnsPerSecond,
      goal: chatTurnGoal(engine),
    });
  }
  if (cost.heap) {
    targets.push({
      what: `${name} heap per parked run (${cost.heap.count} parked), bytes`,
      measured: cost.heap.bytesPerRun,
      against: "2048 B",
      base: 2048,
      goal: 1,
      atMost: true,
    });
  }
  return targets;
}

export function printPauseTargets(results: ReadonlyMap<Engine, PauseCost>, floor: FloorResult[]): void {
  console.log("Issue 17 — the cost of a pause: every target, measured in this run, as a ratio");
  console.log(`${"target".padEnd(50)} ${"measured".padStart(9)}  ${"against".padEnd(28)} ${"ratio".padStart(6)}  goal     verdict`);
  for (const [engine, cost] of results) {
    const saver = cost.sqliteSaver;
    if (saver && "unavailable" in saver)
      console.log(`(PGlite gate only against LangGraph's SqliteSaver: not measured, ${saver.unavailable})`);
    for (const t of targetsOf(engine, cost, floor)) {
      const ratio = t.measured / t.base;
      const met = t.atMost ? ratio <= t.goal : ratio >= t.goal;
      console.log(
        `${t.what.padEnd(50)} ${t.measured.toFixed(1).padStart(9)}  ${t.against.padEnd(28)} ${ratio.toFixed(2).padStart(6)}  ${`${t.atMost ? "≤" : "≥"} ${t.goal.toFixed(2)}`.padEnd(7)}  ${met ? "meets" : "MISSES"}`,
      );
    }
  }
  console.log();
}
