/**
 * Group commit: while one write is in flight, the entries of other writers queue up, and the next
 * write takes them all in one statement. A lone writer is written at once (no added latency); under
 * load, the per-statement cost is shared. A batch that fails is retried entry by entry, so one bad
 * entry fails only its own writer.
 */
interface Pending<T> {
  entry: T;
  resolve(): void;
  reject(error: unknown): void;
}

export function groupCommit<T>(write: (entries: readonly T[]) => Promise<void>): (entry: T) => Promise<void> {
  let queue: Pending<T>[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await write(batch.map((p) => p.entry));
        for (const p of batch) p.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.reject(error);
          continue;
        }
        for (const p of batch) await write([p.entry]).then(p.resolve, p.reject);
      }
    }
    flushing = false;
  }

  return (entry) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ entry, resolve, reject });
      if (!flushing) void flush();
    });
}
