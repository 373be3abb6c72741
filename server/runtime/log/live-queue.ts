/**
 * Values a listener pushes, read in order by one async reader until its signal aborts: the shape
 * of every live feed here (a run's events, an inbox's changes).
 */
export class LiveQueue<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  async *read(signal?: AbortSignal): AsyncGenerator<T> {
    const onAbort = () => this.wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      while (!signal?.aborted) {
        if (this.items.length === 0) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
          continue;
        }
        yield this.items.shift()!;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
