/**
 * A dead database thread (a crash or an out-of-memory abort in the embedded engine) is started
 * again on the same folder, with what was committed; in memory, or when it keeps dying, it is
 * given up and reported dead, so the instance says it is not ready instead of serving errors.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ThreadedPglite } from "@/server/db/pglite-worker";

/** The thread as the engine's crash would leave it: terminated from outside, mid-work. */
class CrashableThread extends ThreadedPglite {
  async crash(): Promise<void> {
    await this.worker.terminate();
  }
}

const rows = async (db: ThreadedPglite, sql: string) => (await db.query(sql)).rows;

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe("the embedded database's thread dying", () => {
  const dirs: string[] = [];
  const open: ThreadedPglite[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((db) => db.close()));
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = async (dataDir?: string) => {
    const db = new CrashableThread({ dataDir, prepared: true, onePlan: true });
    open.push(db);
    await db.ready;
    return db;
  };

  it("is started again on its folder, with what was committed, and answers again", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-thread-"));
    dirs.push(dataDir);
    const db = await start(dataDir);
    await db.query("create table kept (n int)");
    await db.query("insert into kept values (1), (2)");
    expect(db.state()).toBe("up");

    const inFlight = db.query("select pg_sleep(2)");
    await db.crash();
    await expect(inFlight).rejects.toThrow(/thread exited/);
    // Asked while it restarts, a query waits for the new thread rather than failing.
    expect(db.state()).toBe("restarting");
    expect(await rows(db, "select n from kept order by n")).toEqual([{ n: 1 }, { n: 2 }]);
    expect(db.state()).toBe("up");
  }, 60_000);

  it("in memory, is reported dead: a new thread would have lost everything", async () => {
    const db = await start();
    await db.crash();
    await until(() => db.state() === "dead");
    expect(db.state()).toBe("dead");
    await expect(db.query("select 1")).rejects.toThrow(/thread exited/);
  }, 60_000);

  it("is given up when it keeps dying", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-thread-"));
    dirs.push(dataDir);
    const db = await start(dataDir);
    for (let death = 1; death <= 4; death++) {
      await until(() => db.state() !== "restarting");
      if (db.state() === "dead") break;
      await db.crash();
    }
    await until(() => db.state() === "dead");
    expect(db.state()).toBe("dead");
  }, 120_000);
});
