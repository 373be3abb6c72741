/**
 * Where a server's time goes under load: starts `next start` with V8's CPU profiler, drives one
 * load against it (park → resume cycles over HTTP, chat turns, or a model's streamed answer), stops
 * it, and prints the profile's self time grouped by where the code lives, then the hottest functions.
 *
 *   BENCH_PROFILE=cycles|turns|model BENCH_IN_FLIGHT=50 BENCH_SECONDS=10 npm run bench:profile
 *   (BENCH_MODEL_CHUNK_MS=20 paces the model at 50 tokens/s; unpaced by default)
 *   (add BENCH_POSTGRES_URL=postgres://… to profile on a fresh PostgreSQL database; HARBOR_PGLITE_THREAD=0 for the server's thread)
 *
 * `BENCH_PROFILE=gate` profiles the in-process gate cycle instead (bench/gate-cycles.ts, no server):
 * a waiting run answered and parking again, on the embedded database, BENCH_IN_FLIGHT (default 1) at once.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { measureOverHttp } from "./park-resume";
import { chatBody, measure } from "./chat-turn";
import { measureModelStream } from "./model-stream";
import { startModelServer } from "../tests/helpers/model-server";
import { createPostgresDatabase } from "../tests/helpers/postgres";
import { startServer } from "../tests/helpers/server";
import { createToken, signIn } from "../tests/helpers/http";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, the one process.hrtime reads. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of the monotonic clock in microseconds, as process.hrtime.bigint() / 1000 reads it. */
export interface Window {
  from: number;
  to: number;
}

export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** Where a frame's code lives, coarse enough to say what a cycle pays for. */
function placeOf(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (!url) return functionName === "(garbage collector)" ? "GC" : functionName === "(idle)" ? "idle" : `(${functionName || "native"})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  if (url.includes("/.next/server/chunks/")) return "app (bundled server code)";
  if (url.includes("/.next/")) return "app (next runtime)";
  return url.replace(process.cwd(), ".");
}

/** Self time per node; with a window, only the samples taken inside it (start-up and shutdown left out). */
export function summarize(profile: CpuProfile, window?: Window): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.from || at > window.to)) return;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)").reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;
  // A thread that slept through the load (the module loader's, under tsx) has nothing to say.
  if (busy === 0) return console.log("idle through the load");
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of self) {
    const node = byId.get(id)!;
    const place = placeOf(node.callFrame);
    if (place === "idle") continue;
    places.set(place, (places.get(place) ?? 0) + micros);
    const name = `${node.callFrame.functionName || "(anonymous)"} — ${place}:${node.callFrame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  const pct = (micros: number) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
  console.log(`busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s (${((100 * busy) / total).toFixed(0)} %)`);
  console.log("\nself time by place (share of busy time)");
  for (const [place, micros] of [...places].sort((a, b) => b[1] - a[1]).slice(0, 18)) console.log(`  ${pct(micros)}  ${place}`);
  console.log("\nhottest functions (self time)");
  for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${pct(micros)}  ${name}`);
}

/** Prints each thread's profile (the main thread first), only the samples inside `window`. */
function summarizeDir(profileDir: string, window: Window): void {
  // One profile per thread: the main thread (id 0) and the embedded database's worker.
  const files = fs
    .readdirSync(profileDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort((a, b) => threadOf(a) - threadOf(b));
  if (files.length === 0) throw new Error(`no profile written in ${profileDir}`);
  for (const file of files) {
    console.log(`\n== ${threadOf(file) === 0 ? "main thread" : `worker thread ${threadOf(file)}`} (${path.join(profileDir, file)})`);
    summarize(JSON.parse(fs.readFileSync(path.join(profileDir, file), "utf8")) as CpuProfile, window);
  }
  console.log(`\nThe load ran from ${window.from} to ${window.to} µs on the monotonic clock (the profiles' clock).`);
  console.log("Open a profile in Chrome DevTools › Performance for the call tree.");
}

/** The in-process gate cycle, profiled in a process of its own (bench/gate-cycles.ts). */
function profileGate(profileDir: string, inFlight: number, seconds: number): void {
  const out = execFileSync(
    process.execPath,
    [
      "--cpu-prof",
      `--cpu-prof-dir=${profileDir}`,
      "--conditions=react-server",
      "--import",
      "tsx",
      path.join(__dirname, "gate-cycles.ts"),
      String(seconds),
      String(inFlight),
    ],
    { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn" } },
  );
  const result = JSON.parse(out.trim().split("\n").at(-1)!) as { cyclesPerSecond: number; failures: number } & Window;
  console.log(`gate cycles in-process at ${inFlight} in flight: ${result.cyclesPerSecond.toFixed(1)}/s, failures ${result.failures}`);
  summarizeDir(profileDir, result);
}

async function main(): Promise<void> {
  const load = process.env.BENCH_PROFILE ?? "cycles";
  if (load === "gate") {
    return profileGate(
      fs.mkdtempSync(path.join(os.tmpdir(), "harbor-profile-")),
      Number(process.env.BENCH_IN_FLIGHT ?? 1),
      Number(process.env.BENCH_SECONDS ?? 10),
    );
  }
  const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 50);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-profile-"));
  const model =
    load === "model"
      ? await startModelServer(() => ({
          text: "a story told one word at a time ".repeat(20),
          chunkMs: Number(process.env.BENCH_MODEL_CHUNK_MS ?? 0),
        }))
      : undefined;
  const database = process.env.DATABASE_URL
    ? undefined
    : process.env.BENCH_POSTGRES_URL
      ? await createPostgresDatabase(process.env.BENCH_POSTGRES_URL)
      : undefined;
  const env: Record<string, string> = {
    HARBOR_BENCH: "1",
    HARBOR_STREAM_CHUNK_MS: "0",
    HARBOR_MAX_ACTIVE_RUNS_PER_USER: "1000",
    LOG_LEVEL: "warn",
  };
  if (database) Object.assign(env, { DATABASE_URL: database.url, HARBOR_SEED_DEMO: "1", AUTH_SECRET: randomBytes(32).toString("hex") });
  if (model) Object.assign(env, { HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted" });
  const window: Window = { from: 0, to: Number.MAX_SAFE_INTEGER };
  const server = await startServer(env, "bench-profile", ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]);
  try {
    const { token } = await createToken(server.url, await signIn(server.url, "alice@acme.test"), "bench");
    // The first second warms the JIT and the pools; start-up and shutdown are not the load's cost.
    window.from = monotonicMicros() + 1_000_000;
    if (load === "turns") {
      const r = await measure({
        label: "chat turn",
        url: `${server.url}/api/agents/concierge/runs`,
        headers: { authorization: `Bearer ${token}` },
        connections: inFlight,
        seconds,
        body: chatBody,
      });
      console.log(`chat turns at ${inFlight} clients: ${r.turnsPerSecond.toFixed(1)}/s, p50 ${r.p50} ms, failures ${r.failures}`);
    } else if (load === "model") {
      const r = await measureModelStream("Harbor", server.url, token, inFlight, seconds);
      console.log(
        `model answers at ${inFlight} chats: first token p50 ${r.firstTokenP50.toFixed(1)} ms, ${r.tokensPerSecond.toFixed(0)} tokens/s`,
      );
    } else {
      const r = await measureOverHttp(server.url, token, inFlight, seconds);
      console.log(`park → resume over HTTP at ${inFlight} threads: ${r.cyclesPerSecond.toFixed(1)} cycles/s, failures ${r.failures}`);
    }
    window.to = monotonicMicros();
  } finally {
    await server.stop();
    await database?.drop();
    await model?.close();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
  summarizeDir(profileDir, window);
}

/** The thread id in V8's profile name: CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile */
function threadOf(file: string): number {
  return Number(file.split(".").at(-3) ?? 0);
}

if (process.argv[1]?.endsWith("profile.ts")) void main();
