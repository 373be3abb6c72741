/**
 * Issue 36's targets (streaming at the model's speed, the embedded path ahead of SQLite): each
 * measured in the same run as its baseline, printed with the ratio or difference and a verdict.
 */
import type { FloorResult } from "./durable-floor";
import type { StreamResult } from "./model-stream";
import type { Engine, PauseCost } from "./pause-targets";

export interface StreamRuns {
  /** The model at a real model's pace (50 tokens/s per chat). */
  paced: StreamResult[];
  /** The model as fast as its server sends. */
  unpaced: StreamResult[];
}

interface Row {
  what: string;
  measured: string;
  baseline: string;
  /** The ratio or difference the target reads. */
  reading: string;
  goal: string;
  met: boolean;
}

const at = (results: StreamResult[], path: StreamResult["path"], chats: number) =>
  results.find((r) => r.path === path && r.chats === chats);

function streamRows({ paced, unpaced }: StreamRuns): Row[] {
  const rows: Row[] = [];
  const [direct1, harbor1] = [at(paced, "direct", 1), at(paced, "Harbor", 1)];
  if (direct1 && harbor1) {
    const added = harbor1.firstTokenP50 - direct1.firstTokenP50;
    rows.push({
      what: "first token added, 1 chat, 50 tokens/s (p50)",
      measured: `${harbor1.firstTokenP50.toFixed(1)} ms`,
      baseline: `direct ${direct1.firstTokenP50.toFixed(1)} ms`,
      reading: `+${added.toFixed(1)} ms`,
      goal: "≤ +8 ms",
      met: added <= 8,
    });
  }
  const [direct50, harbor50] = [at(paced, "direct", 50), at(paced, "Harbor", 50)];
  if (direct50 && harbor50) {
    const share = harbor50.tokensPerSecond / direct50.tokensPerSecond;
    rows.push({
      what: "tokens/s at 50 chats, 50 tokens/s",
      measured: harbor50.tokensPerSecond.toFixed(0),
      baseline: `direct ${direct50.tokensPerSecond.toFixed(0)}`,
      reading: `${share.toFixed(2)}×`,
      goal: "≥ 0.95×",
      met: share >= 0.95,
    });
    const over = harbor50.firstTokenP99 - direct50.firstTokenP99;
    rows.push({
      what: "first token p99 at 50 chats, 50 tokens/s",
      measured: `${harbor50.firstTokenP99.toFixed(1)} ms`,
      baseline: `direct ${direct50.firstTokenP99.toFixed(1)} ms`,
      reading: `+${over.toFixed(1)} ms`,
      goal: "≤ +100 ms",
      met: over <= 100,
    });
  }
  const [fast, harborFast] = [at(unpaced, "direct", 50), at(unpaced, "Harbor", 50)];
  if (fast && harborFast) {
    const share = harborFast.tokensPerSecond / fast.tokensPerSecond;
    rows.push({
      what: "tokens/s at 50 chats, unpaced",
      measured: harborFast.tokensPerSecond.toFixed(0),
      baseline: `direct ${fast.tokensPerSecond.toFixed(0)}`,
      reading: `${share.toFixed(2)}×`,
      goal: "≥ 0.30×",
      met: share >= 0.3,
    });
  }
  return rows;
}

function cycleRows(results: ReadonlyMap<Engine, PauseCost>, floor: FloorResult[]): Row[] {
  const rows: Row[] = [];
  const pglite = results.get("pglite");
  const gate = pglite?.inProcess.find((c) => c.label.startsWith("gate only") && c.inFlight === 1);
  const measured = pglite?.sqliteSaver;
  const sqliteSaver = measured && "measured" in measured ? measured.measured.cyclesPerSecond : undefined;
  if (gate) {
    const ratio = sqliteSaver ? gate.cyclesPerSecond / sqliteSaver : NaN;
    rows.push({
      what: "PGlite gate cycle, sequential",
      measured: `${gate.cyclesPerSecond.toFixed(0)}/s`,
      baseline: sqliteSaver ? `SqliteSaver ${sqliteSaver.toFixed(0)}/s` : "SqliteSaver not measured",
      reading: Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : "—",
      goal: "≥ 1.0× and ≥ 400/s",
      met: ratio >= 1 && gate.cyclesPerSecond >= 400,
    });
  }
  for (const [engine, cost] of results) {
    const http = cost.httpCycles.find((c) => c.inFlight === 50);
    const base = floor.find((f) => f.engine === engine && f.inFlight === 50);
    if (!http) continue;
    rows.push({
      what: `${engine === "pglite" ? "PGlite" : "PostgreSQL"} park → resume over HTTP, 50 threads`,
      measured: `${http.cyclesPerSecond.toFixed(0)}/s`,
      baseline: base ? `durable floor ${base.cyclesPerSecond.toFixed(0)}/s` : "floor not measured",
      reading: base ? `${(http.cyclesPerSecond / base.cyclesPerSecond).toFixed(2)}× floor` : "—",
      goal: "≥ 300/s",
      met: http.cyclesPerSecond >= 300,
    });
  }
  return rows;
}

export function printIssue36Targets(options: {
  stream?: StreamRuns;
  cycles?: ReadonlyMap<Engine, PauseCost>;
  floor?: FloorResult[];
}): void {
  const rows = [
    ...(options.stream ? streamRows(options.stream) : []),
    ...(options.cycles ? cycleRows(options.cycles, options.floor ?? []) : []),
  ];
  if (rows.length === 0) return;
  console.log("Issue 36 — streaming at the model's speed, the embedded path ahead of SQLite: every target, measured in this run");
  console.log(
    `${"target".padEnd(48)} ${"measured".padStart(10)}  ${"baseline (same run)".padEnd(26)} ${"reading".padStart(12)}  ${"goal".padEnd(19)} verdict`,
  );
  for (const r of rows) {
    console.log(
      `${r.what.padEnd(48)} ${r.measured.padStart(10)}  ${r.baseline.padEnd(26)} ${r.reading.padStart(12)}  ${r.goal.padEnd(19)} ${r.met ? "meets" : "MISSES"}`,
    );
  }
  console.log();
}
