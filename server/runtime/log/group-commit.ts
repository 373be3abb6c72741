/**
 * Group commit: while one write is in flight, the entries of other writers queue up, and the next
 * write takes them all in one statement. A lone writer is written at once (no added latency); under
 * load, the per-statement cost is shared. A batch that fails is retried entry by entry, so one bad
 * entry fails only its own writer.
 */
interface Pending<T, R> {
  entry: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface BatchOptions<T> {
  /**
   * What an entry touches (gate ids, a thread id): entries sharing a key never go in one batch —
   * the later one waits for the next — so one statement never decides the same thing twice.
   */
  keys?: (entry: T) => readonly string[];
  /** The most entries one statement takes (its arrays' size). */
  maxBatch?: number;
}

/** Batches `write`, which answers each entry's result in the entries' order. */
export function batched<T, R>(
  write: (entries: readonly T[]) => Promise<readonly R[]>,
  options: BatchOptions<T> = {},
): (entry: T) => Promise<R> {
  const maxBatch = options.maxBatch ?? 100;
  let queue: Pending<T, R>[] = [];
  let flushing = false;

  /** The next batch, in arrival order: entries whose keys collide with it stay queued. */
  function takeBatch(): Pending<T, R>[] {
    if (!options.keys) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      return batch;
    }
    const taken = new Set<string>();
    const batch: Pending<T, R>[] = [];
    const left: Pending<T, R>[] = [];
    for (const pending of queue) {
      const keys = options.keys(pending.entry);
      if (batch.length < maxBatch && !keys.some((key) => taken.has(key))) {
        for (const key of keys) taken.add(key);
        batch.push(pending);
      } else left.push(pending);
    }
    queue = left;
    return batch;
  }

  /** `write`'s answers, one per entry, or an error saying it answered fewer. */
  async function written(entries: readonly T[]): Promise<readonly R[]> {
    const results = await write(entries);
    if (results.length !== entries.length) throw new Error(`a batched write answered ${results.length} of ${entries.length} entries`);
    return results;
  }

  async function writeOne(pending: Pending<T, R>): Promise<void> {
    try {
      const [result] = await written([pending.entry]);
      pending.resolve(result!);
    } catch (error) {
      pending.reject(error);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    while (queue.length > 0) {
      const batch = takeBatch();
      if (batch.length === 1) {
        await writeOne(batch[0]!);
        continue;
      }
      try {
        const results = await written(batch.map((p) => p.entry));
        for (const [index, p] of batch.entries()) p.resolve(results[index]!);
      } catch {
        for (const p of batch) await writeOne(p);
      }
    }
    flushing = false;
  }

  return (entry) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ entry, resolve, reject });
      if (!flushing) void flush();
    });
}

/** Group commit of writes that answer nothing but success. */
export function groupCommit<T>(write: (entries: readonly T[]) => Promise<void>, options?: BatchOptions<T>): (entry: T) => Promise<void> {
  return batched(async (entries: readonly T[]) => {
    await write(entries);
    return entries.map(() => undefined);
  }, options);
}
