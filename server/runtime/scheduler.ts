/**
 * The scheduler: at most `maxActive` runs execute at once in this process; the others wait in a
 * queue taken by priority (higher first), then age. PRIORITIZE reorders a queued run; a running
 * run keeps its slot.
 */
export interface QueuedRun {
  runId: string;
  tenantId: string;
  priority: number;
  queuedAt: number;
}

export class Scheduler {
  private readonly active = new Set<string>();
  private readonly waiting: (QueuedRun & { admit: () => void })[] = [];

  constructor(private readonly maxActive: number) {}

  /**
   * Resolves when the run may execute. `onQueued` is called (once) with the number of runs ahead of
   * it (at least one) if it has to wait first, so the caller can show the run as queued. An aborted `signal` takes
   * the run out of the queue and rejects with the signal's reason.
   */
  async acquire(
    run: { runId: string; tenantId: string },
    priority: number,
    onQueued?: (ahead: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    const { runId, tenantId } = run;
    signal?.throwIfAborted();
    if (this.active.size < this.maxActive && this.waiting.length === 0) {
      this.active.add(runId);
      return;
    }
    const admitted = new Promise<void>((admit, reject) => {
      this.waiting.push({ runId, tenantId, priority, queuedAt: Date.now(), admit });
      signal?.addEventListener("abort", () => {
        // Never admitted, so never released: leave the queue rather than hold a slot.
        if (this.waiting.some((w) => w.runId === runId)) {
          this.leave(runId);
          reject(signal.reason);
        }
      });
    });
    // Settled before it is awaited when the signal aborts during `onQueued`: not an unhandled rejection.
    admitted.catch(() => undefined);
    try {
      // Ahead of it: the runs queued before it, and a running one that must end to free a slot.
      await onQueued?.(this.ordered().findIndex((w) => w.runId === runId) + 1);
    } catch (error) {
      this.leave(runId);
      throw error;
    }
    this.admitNext();
    await admitted;
  }

  /** Whether a run would start at once (a free slot, nobody waiting). */
  hasRoom(): boolean {
    return this.active.size < this.maxActive && this.waiting.length === 0;
  }

  /** Frees the run's slot (or its place in the queue). */
  release(runId: string): void {
    this.leave(runId);
    if (this.active.delete(runId)) this.admitNext();
  }

  private leave(runId: string): void {
    const index = this.waiting.findIndex((w) => w.runId === runId);
    if (index !== -1) this.waiting.splice(index, 1);
  }

  /** A queued run's new priority; false when it is not waiting here (running, or elsewhere). */
  reprioritize(runId: string, priority: number): boolean {
    const entry = this.waiting.find((w) => w.runId === runId);
    if (entry) entry.priority = priority;
    return entry !== undefined;
  }

  /** The queue in the order it will be taken (one tenant's runs), and how many run in the process. */
  snapshot(tenantId: string): { active: number; maxActive: number; queue: QueuedRun[] } {
    return {
      active: this.active.size,
      maxActive: this.maxActive,
      queue: this.ordered()
        .filter((w) => w.tenantId === tenantId)
        .map(({ runId, tenantId: tenant, priority, queuedAt }) => ({ runId, tenantId: tenant, priority, queuedAt })),
    };
  }

  private ordered() {
    return [...this.waiting].sort((a, b) => b.priority - a.priority || a.queuedAt - b.queuedAt);
  }

  private admitNext(): void {
    while (this.active.size < this.maxActive && this.waiting.length > 0) {
      const next = this.ordered()[0]!;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      this.active.add(next.runId);
      next.admit();
    }
  }
}
