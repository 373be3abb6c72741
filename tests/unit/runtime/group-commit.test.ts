import { describe, expect, it } from "vitest";
import { groupCommit } from "@/server/runtime/group-commit";

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
});
