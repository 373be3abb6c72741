import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DataDirLockedError } from "@/server/db/lockfile";

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-lock-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("the embedded database's lockfile", () => {
  it("refuses a second opener while a live process holds the folder, naming that process", async () => {
    const dir = tempDir();
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      fs.writeFileSync(path.join(dir, "harbor.lock"), String(holder.pid));
      expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
      expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`in use by process ${holder.pid}`));
    } finally {
      holder.kill();
    }
  });

  it("takes over a lock left by a process that died", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "harbor.lock"), "999999999");
    const release = acquireDataDirLock(dir);
    expect(fs.readFileSync(path.join(dir, "harbor.lock"), "utf8")).toBe(String(process.pid));
    release();
    expect(fs.existsSync(path.join(dir, "harbor.lock"))).toBe(false);
  });

  it("refuses a second opener in the same process, but takes over a stale lock naming our pid", () => {
    const dir = tempDir();
    const release = acquireDataDirLock(dir);
    expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`in use by process ${process.pid}`));
    release();
    // A file left by an earlier incarnation with the same pid (a restarted container).
    fs.writeFileSync(path.join(dir, "harbor.lock"), String(process.pid));
    acquireDataDirLock(dir)();
  });

  it("creates the folder and its parents when they do not exist yet", () => {
    const dir = path.join(tempDir(), "a", "b");
    const release = acquireDataDirLock(dir);
    expect(fs.existsSync(path.join(dir, "harbor.lock"))).toBe(true);
    release();
  });
});
