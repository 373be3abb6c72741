import { describe, expect, it } from "vitest";
import { Scheduler, type RunOwner } from "@/server/runtime/runs/scheduler";

const run = (runId: string, ownerId: string, tenantId = "acme"): RunOwner => ({ runId, ownerId, tenantId });

const settle = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** Acquires a slot for each run in turn (each queued a millisecond after the one before). */
async function queue(scheduler: Scheduler, runs: RunOwner[], admitted: string[], priority = 0) {
  for (const r of runs) {
    void scheduler.acquire(r, priority).then(() => admitted.push(r.runId));
    await settle(2);
  }
}

describe("the scheduler", () => {
  it("caps one user's executing runs while another user's start at once", async () => {
    const scheduler = new Scheduler(3, 2);
    const admitted: string[] = [];
    await queue(scheduler, [run("a1", "alice"), run("a2", "alice"), run("a3", "alice"), run("m1", "mallory", "globex")], admitted);
    expect(admitted).toEqual(["a1", "a2", "m1"]);
    expect(scheduler.hasRoom()).toBe(false);
    scheduler.release("m1");
    // A free slot, but the only waiting run's user is at the cap: room for anyone else.
    expect(scheduler.hasRoom()).toBe(true);
    scheduler.release("a1");
    await settle();
    expect(admitted).toEqual(["a1", "a2", "m1", "a3"]);
  });

  it("takes turns across tenants, then across a tenant's users, whatever order the runs came in", async () => {
    const scheduler = new Scheduler(1, 10);
    const admitted: string[] = [];
    await queue(
      scheduler,
      [run("a1", "alice"), run("a2", "alice"), run("a3", "alice"), run("a4", "alice"), run("b1", "bob"), run("m1", "mallory", "globex")],
      admitted,
    );
    for (let i = 0; i < 5; i++) {
      scheduler.release(admitted.at(-1)!);
      await settle();
    }
    // Alice went first, so her tenant's ring goes on to bob; mallory's tenant has its turn in between.
    expect(admitted).toEqual(["a1", "m1", "b1", "a2", "a3", "a4"]);
  });

  it("still takes a higher priority first", async () => {
    const scheduler = new Scheduler(1, 10);
    const admitted: string[] = [];
    await queue(scheduler, [run("a1", "alice"), run("m1", "mallory", "globex")], admitted);
    await queue(scheduler, [run("a2", "alice")], admitted, 5);
    scheduler.release("a1");
    await settle();
    expect(admitted).toEqual(["a1", "a2"]);
  });

  it("says how many runs are ahead of a queued run", async () => {
    const scheduler = new Scheduler(1, 10);
    const ahead: number[] = [];
    void scheduler.acquire(run("a1", "alice"), 0);
    void scheduler.acquire(run("a2", "alice"), 0, async (n) => void ahead.push(n));
    void scheduler.acquire(run("m1", "mallory", "globex"), 0, async (n) => void ahead.push(n));
    await settle();
    // Mallory's run goes before alice's second: her tenant has had no turn yet.
    expect(ahead).toEqual([1, 1]);
  });
});
