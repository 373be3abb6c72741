/**
 * The scheduler: at most `maxActive` runs execute at once in this process, and at most
 * `maxPerUser` of one user's; the others wait. The queue is fair: among the runs that may start,
 * higher priority goes first, then tenants take turns, and within a tenant its users take turns
 * (round-robin). So one user's hundred runs never hold back another user's while capacity remains.
 * PRIORITIZE reorders a queued run; a running run keeps its slot.
 */
export interface QueuedRun {
  runId: string;
  tenantId: string;
  priority: number;
  queuedAt: number;
}

/** Whose run it is: what fairness counts. */
export interface RunOwner {
  runId: string;
  tenantId: string;
  ownerId: string;
}

interface Waiting extends QueuedRun {
  ownerId: string;
  admit: () => void;
}

export class Scheduler {
  private readonly active = new Map<string, RunOwner>();
  private readonly waiting: Waiting[] = [];
  /** The tenant served last, and each tenant's user served last: where the round-robin goes on. */
  private lastTenant: string | undefined;
  private readonly lastOwnerOf = new Map<string, string>();

  constructor(
    private readonly maxActive: number,
    readonly maxPerUser: number = Number.MAX_SAFE_INTEGER,
  ) {}

  /**
   * Resolves when the run may execute. `onQueued` is called (once) with the number of runs ahead of
   * it (at least one) if it has to wait first, so the caller can show the run as queued. An aborted `signal` takes
   * the run out of the queue and rejects with the signal's reason.
   */
  async acquire(run: RunOwner, priority: number, onQueued?: (ahead: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active.size < this.maxActive && this.mayStart(run.ownerId) && this.eligible().length === 0) {
      this.active.set(run.runId, run);
      this.served(run);
      return;
    }
    const admitted = new Promise<void>((admit, reject) => {
      this.waiting.push({ ...run, priority, queuedAt: Date.now(), admit });
      signal?.addEventListener("abort", () => {
        // Never admitted, so never released: leave the queue rather than hold a slot.
        if (this.waiting.some((w) => w.runId === run.runId)) {
          this.leave(run.runId);
          reject(signal.reason);
        }
      });
    });
    // Settled before it is awaited when the signal aborts during `onQueued`: not an unhandled rejection.
    admitted.catch(() => undefined);
    try {
      // Ahead of it: the runs that go before it, and a running one that must end to free a slot.
      await onQueued?.(this.ordered().findIndex((w) => w.runId === run.runId) + 1);
    } catch (error) {
      this.leave(run.runId);
      throw error;
    }
    this.admitNext();
    await admitted;
  }

  /** Whether a run of someone with nothing waiting here would start at once. */
  hasRoom(): boolean {
    return this.active.size < this.maxActive && this.eligible().length === 0;
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

  /** How many runs execute here, and how many wait for a slot. */
  counts(): { activeRuns: number; queuedRuns: number } {
    return { activeRuns: this.active.size, queuedRuns: this.waiting.length };
  }

  /** A queued run's new priority; false when it is not waiting here (running, or elsewhere). */
  reprioritize(runId: string, priority: number): boolean {
    const entry = this.waiting.find((w) => w.runId === runId);
    if (entry) entry.priority = priority;
    return entry !== undefined;
  }

  /**
   * One tenant's view of the scheduler: how many of its runs execute here and its queue in the
   * order it will be taken, with the process's capacity. Other tenants' runs are never counted in:
   * a tenant learns nothing of another's activity.
   */
  snapshot(tenantId: string): { active: number; maxActive: number; queue: QueuedRun[] } {
    let active = 0;
    for (const run of this.active.values()) if (run.tenantId === tenantId) active += 1;
    return {
      active,
      maxActive: this.maxActive,
      queue: this.ordered()
        .filter((w) => w.tenantId === tenantId)
        .map(({ runId, tenantId: tenant, priority, queuedAt }) => ({ runId, tenantId: tenant, priority, queuedAt })),
    };
  }

  /** How many runs execute per user. */
  private executingPerUser(): Map<string, number> {
    const owners = new Map<string, number>();
    for (const run of this.active.values()) owners.set(run.ownerId, (owners.get(run.ownerId) ?? 0) + 1);
    return owners;
  }

  private mayStart(ownerId: string, owners = this.executingPerUser()): boolean {
    return (owners.get(ownerId) ?? 0) < this.maxPerUser;
  }

  /** The waiting runs whose user is under the cap. */
  private eligible(): Waiting[] {
    const owners = this.executingPerUser();
    return this.waiting.filter((w) => this.mayStart(w.ownerId, owners));
  }

  /**
   * Every waiting run in the order it would be taken now: runs whose user is at the cap last; then
   * by priority; then round-robin — across tenants, and within a tenant across its users, each ring
   * going on after the one served last.
   */
  private ordered(): Waiting[] {
    const owners = this.executingPerUser();
    const byAge = [...this.waiting].sort((a, b) => a.queuedAt - b.queuedAt);
    // Within a tenant: round k of its users' runs, the user's place in the ring.
    const withinTenant = new Map<Waiting, [number, number]>();
    for (const [tenantId, runs] of groupBy(byAge, (w) => w.tenantId)) {
      const place = ring(
        runs.map((w) => w.ownerId),
        this.lastOwnerOf.get(tenantId),
      );
      for (const userRuns of groupBy(runs, (w) => w.ownerId).values())
        userRuns.forEach((w, k) => withinTenant.set(w, [k, place.get(w.ownerId)!]));
    }
    // Across tenants: the run's turn within its tenant, the tenant's place in the ring.
    const across = new Map<Waiting, [number, number]>();
    const tenantPlace = ring(
      byAge.map((w) => w.tenantId),
      this.lastTenant,
    );
    for (const runs of groupBy(byAge, (w) => w.tenantId).values())
      [...runs]
        .sort((a, b) => compare(withinTenant.get(a)!, withinTenant.get(b)!))
        .forEach((w, i) => across.set(w, [i, tenantPlace.get(w.tenantId)!]));
    const blocked = (w: Waiting) => (this.mayStart(w.ownerId, owners) ? 0 : 1);
    return byAge.sort((a, b) => blocked(a) - blocked(b) || b.priority - a.priority || compare(across.get(a)!, across.get(b)!));
  }

  /** Records whose turn it was, for the round-robin. */
  private served(run: RunOwner): void {
    this.lastTenant = run.tenantId;
    this.lastOwnerOf.set(run.tenantId, run.ownerId);
  }

  private admitNext(): void {
    while (this.active.size < this.maxActive) {
      const next = this.ordered()[0];
      if (!next || !this.mayStart(next.ownerId)) return;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      this.active.set(next.runId, next);
      this.served(next);
      next.admit();
    }
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Each id's place in a ring of the distinct ids, in a fixed (sorted) order, starting after `last`. */
function ring(ids: readonly string[], last: string | undefined): Map<string, number> {
  const sorted = [...new Set(ids)].sort();
  const start = last === undefined ? 0 : sorted.findIndex((id) => id > last);
  const from = start === -1 ? 0 : start;
  return new Map(sorted.map((id, i) => [id, (i - from + sorted.length) % sorted.length]));
}

const compare = (a: readonly [number, number], b: readonly [number, number]) => a[0] - b[0] || a[1] - b[1];
