/**
 * The previous release, built from git history (upgrades/previous-release.json names its commit),
 * so the upgrade tests can leave waiting work behind with it and answer it with this build. Built
 * once into .upgrade/<commit>/ and reused; it shares this checkout's node_modules when its
 * dependencies are the same, else installs its own.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

export interface PreviousRelease {
  name: string;
  commit: string;
  /** Where it is built: `next start` runs there. */
  dir: string;
}

export function previousRelease(): PreviousRelease {
  const { name, commit } = JSON.parse(fs.readFileSync(path.join(ROOT, "upgrades/previous-release.json"), "utf8")) as {
    name: string;
    commit: string;
  };
  return { name, commit, dir: path.join(ROOT, ".upgrade", commit) };
}

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });

/** The lockfile's packages without the root's own version: what `npm ci` would install. */
function installed(lockfile: string): string {
  const lock = JSON.parse(lockfile) as { packages: Record<string, { version?: string }> };
  const { "": root, ...packages } = lock.packages;
  return JSON.stringify({ root: { ...root, version: undefined }, packages });
}

function sameDependencies(commit: string): boolean {
  const then = run("git", ["show", `${commit}:package-lock.json`], ROOT).toString("utf8");
  return installed(then) === installed(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
}

/** Builds the previous release unless it is built already; returns where. */
export function buildPreviousRelease(): PreviousRelease {
  const release = previousRelease();
  if (fs.existsSync(path.join(release.dir, ".next/BUILD_ID"))) return release;
  try {
    run("git", ["cat-file", "-e", `${release.commit}^{commit}`], ROOT);
  } catch {
    throw new Error(`The previous release's commit ${release.commit} is not in this clone's history: clone without --depth.`);
  }
  fs.rmSync(release.dir, { recursive: true, force: true });
  fs.mkdirSync(release.dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${release.commit} | tar -x -C "${release.dir}"`], { cwd: ROOT, stdio: "pipe" });
  if (sameDependencies(release.commit)) fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(release.dir, "node_modules"), "dir");
  else run("npm", ["ci", "--no-audit", "--no-fund"], release.dir);
  run(process.execPath, ["node_modules/next/dist/bin/next", "build"], release.dir);
  return release;
}
