import { describe, expect, it } from "vitest";
import { batched, groupCommit } from "@/server/runtime/log/group-commit";

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

describe("group commit", () => {
  it("writes a lone entry at once", async () => {
    const writes: number[][] = [];
    const write = groupCommit(async (entries: readonly number[]) => void writes.push([...entries]));
    await write(1);
    expect(writes).toEqual([[1]]);
  });

  it("batches the entries that arrive while a write is in flight into the next write", async () => {
    const writes: number[][] = [];
    const gate = deferred();
    const write = groupCommit(async (entries: readonly number[]) => {
      writes.push([...entries]);
      if (writes.length === 1) await gate.promise;
    });
    const first = write(1);
    const rest = [write(2), write(3), write(4)];
    gate.release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it("retries a failed batch entry by entry, so only the bad entry fails", async () => {
    const gate = deferred();
    let calls = 0;
    const write = groupCommit(async (entries: readonly number[]) => {
      calls++;
      if (calls === 1) await gate.promise;
      if (entries.includes(13)) throw new Error(`bad entry in ${entries.join(",")}`);
    });
    const first = write(1);
    const batch = [write(12), write(13), write(14)];
    gate.release();
    await first;
    const outcomes = await Promise.allSettled(batch);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe("bad entry in 13");
  });

  it("keeps accepting writes after a failure", async () => {
    const write = groupCommit(async (entries: readonly number[]) => {
      if (entries[0] === 0) throw new Error("boom");
    });
    await expect(write(0)).rejects.toThrow("boom");
    await expect(write(1)).resolves.toBeUndefined();
  });

  it("answers each entry with its own result", async () => {
    const gate = deferred();
    const write = batched(async (entries: readonly number[]) => {
      await gate.promise;
      return entries.map((n) => n * 10);
    });
    const results = Promise.all([write(1), write(2), write(3)]);
    gate.release();
    expect(await results).toEqual([10, 20, 30]);
  });

  it("never puts two entries that share a key in one batch: the later one waits for the next", async () => {
    const writes: string[][] = [];
    const gate = deferred();
    const write = batched(
      async (entries: readonly { name: string; keys: string[] }[]) => {
        writes.push(entries.map((e) => e.name));
        if (writes.length === 1) await gate.promise;
        return entries.map(() => true);
      },
      { keys: (entry) => entry.keys },
    );
    const first = write({ name: "first", keys: ["g1"] });
    const rest = [
      write({ name: "a", keys: ["g1", "run-1"] }),
      write({ name: "b", keys: ["g2", "run-1"] }),
      write({ name: "c", keys: ["g3"] }),
      write({ name: "d", keys: ["g1"] }),
    ];
    gate.release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([["first"], ["a", "c"], ["b", "d"]]);
  });

  it("takes at most maxBatch entries in one write", async () => {
    const sizes: number[] = [];
    const gate = deferred();
    const write = groupCommit(
      async (entries: readonly number[]) => {
        sizes.push(entries.length);
        if (sizes.length === 1) await gate.promise;
      },
      { maxBatch: 2 },
    );
    const all = [write(0), write(1), write(2), write(3), write(4)];
    gate.release();
    await Promise.all(all);
    expect(sizes).toEqual([1, 2, 2]);
  });

  it("fails loud when a batched write answers fewer entries than it took", async () => {
    const gate = deferred();
    let calls = 0;
    const write = batched(async (entries: readonly number[]) => {
      if (++calls === 1) {
        await gate.promise;
        return entries;
      }
      return entries.slice(1);
    });
    const first = write(1);
    const rest = [write(2), write(3)];
    gate.release();
    await first;
    // Retried one by one after the short answer; each lone write answers nothing, and says so.
    const outcomes = await Promise.allSettled(rest);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
  });
});
