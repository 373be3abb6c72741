/**
 * The baseline of the embedded gate cycle: LangGraph.js's SqliteSaver on the same work (one node
 * that interrupts again each time it is resumed, one cycle at a time), measured in the same run.
 * It lives in its own package (bench/sqlite-saver/), installed here on first use and run as a child
 * process, so LangGraph never loads into Harbor and Harbor's `npm ci` never needs it.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";

const run = promisify(execFile);
const DIR = path.resolve(__dirname, "sqlite-saver");

const saverResult = z.object({
  cyclesPerSecond: z.number(),
  cycles: z.number(),
  p50: z.number(),
  p99: z.number(),
  failures: z.number(),
});
export type SaverResult = z.infer<typeof saverResult>;

/** Measured, or why not (no compiler for the SQLite binding, say): the bench goes on either way. */
export type SaverMeasurement = { measured: SaverResult } | { unavailable: string };

/**
 * The environment its install builds in. The SQLite binding's prebuilt binaries are downloaded from
 * outside the npm registry, so it is built from source; node-gyp takes Node's headers from the
 * installation running this when they are there (nothing to download).
 */
function installEnv(): NodeJS.ProcessEnv {
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  const headers = fs.existsSync(path.join(prefix, "include/node/common.gypi"));
  return { ...process.env, npm_config_build_from_source: "true", ...(headers ? { npm_config_nodedir: prefix } : {}) };
}

/** Installs the package from its lock file unless it is there already (the first run takes a minute or two). */
async function ensureInstalled(): Promise<void> {
  if (fs.existsSync(path.join(DIR, "node_modules/.package-lock.json"))) return;
  console.log("(installing LangGraph's SqliteSaver into bench/sqlite-saver, once)");
  await run("npm", ["ci", "--prefix", DIR, "--no-audit", "--no-fund"], { env: installEnv(), maxBuffer: 16 * 1024 * 1024 });
}

/** SqliteSaver's gate cycles for `seconds` (after a second's warm-up), sequentially, in a child process. */
export async function measureSqliteSaver(seconds: number): Promise<SaverMeasurement> {
  try {
    await ensureInstalled();
    const { stdout } = await run(process.execPath, [path.join(DIR, "measure.mjs"), String(seconds)], { cwd: DIR });
    const last = stdout.trim().split("\n").at(-1) ?? "";
    return { measured: saverResult.parse(JSON.parse(last)) };
  } catch (error) {
    const reason = (error as { stderr?: string }).stderr?.trim().split("\n").at(-1) || (error as Error).message;
    return { unavailable: reason.slice(0, 300) };
  }
}
