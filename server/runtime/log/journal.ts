/**
 * A run's journal: assigns each event the run's next sequence number, appends it to the event log,
 * and only then publishes it. The run is executed by one process, which therefore owns the counter;
 * the (run_id, seq) primary key turns any second writer into a loud failure.
 *
 * One exception, for a model's text as it streams: `stream` publishes at once and stores soon after,
 * in coalesced writes shared with other runs. Any other append waits for those writes first, so the
 * stored log never has a hole; a crash loses at most the unwritten tail of the message being
 * streamed (see `STREAMED_AHEAD_MAX`).
 */
import type { Alongside, EventRow } from "@/server/db/queries/run-writes";
import type { EventBus } from "./event-bus";
import type { LoggedEvent, RunEvent } from "./events";

export interface EventStore {
  /** Stores events together with the state changes they describe, atomically. */
  insert(runId: string, events: readonly EventRow[], alongside?: Alongside): Promise<void>;
}

export interface AppendOptions {
  /** Spaces out publication (streamed text); the write is never delayed. */
  paceMs?: number;
  /** State changes that commit with the events. */
  alongside?: Alongside;
}

/**
 * How many events a run may publish before they are stored. Streaming waits for its writes beyond
 * it, which bounds both the memory a run holds and what a crash can lose: the events that close an
 * interrupted message after a crash are numbered past this many, so no sequence number a reader saw
 * is ever given to another event. Only ever raise it (a release reclaims runs of the one before).
 */
export const STREAMED_AHEAD_MAX = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function toStoredRows(logged: readonly LoggedEvent[]): EventRow[] {
  return logged.map((l) => ({ seq: l.seq, type: l.event.type, data: l.event }));
}

/** Two sets of state changes as one: lists add up, the later run update wins. */
function mergeAlongside(a: Alongside | undefined, b: Alongside | undefined): Alongside | undefined {
  if (!a) return b;
  if (!b) return a;
  const messages = [...(a.messages?.rows ?? []), ...(b.messages?.rows ?? [])];
  const threadId = a.messages?.threadId ?? b.messages?.threadId;
  return {
    messages: threadId && messages.length > 0 ? { threadId, rows: messages } : undefined,
    interactions: [...(a.interactions ?? []), ...(b.interactions ?? [])],
    jobs: [...(a.jobs ?? []), ...(b.jobs ?? [])],
    outbox: [...(a.outbox ?? []), ...(b.outbox ?? [])],
    grantUses: [...(a.grantUses ?? []), ...(b.grantUses ?? [])],
    run: a.run || b.run ? ({ ...a.run, ...b.run } as Alongside["run"]) : undefined,
  };
}

export class RunJournal {
  private nextSeq: number;
  /**
   * Numbered events (and their state changes) that ride along with the next append, in groups
   * that keep their publication pace.
   */
  private deferred: { groups: { logged: LoggedEvent[]; paceMs?: number }[]; alongside?: Alongside } | undefined;

  /** Streamed events published but not yet stored, in order; and the write storing them, if any. */
  private unstored: LoggedEvent[] = [];
  private storing: Promise<void> | undefined;
  private storeFailure: unknown;
  /** An append waits for the streamed writes: what is left goes in its statement, not another. */
  private settling = false;

  constructor(
    readonly runId: string,
    private readonly store: EventStore,
    private readonly bus: EventBus,
    lastSeq = 0,
  ) {
    this.nextSeq = lastSeq + 1;
  }

  /** Numbers the next events after `seq`: something else wrote to the log while the run was parked. */
  continueAfter(seq: number | undefined): void {
    if (seq !== undefined && seq >= this.nextSeq) this.nextSeq = seq + 1;
  }

  /**
   * Numbers events without storing them, for a caller that stores them in its own statement
   * (a run's first event, with the run) and calls `publish` once it committed.
   */
  prepare(events: readonly RunEvent[]): LoggedEvent[] {
    const at = Date.now();
    return events.map((event) => ({ runId: this.runId, seq: this.nextSeq++, at, event }));
  }

  /** Publishes stored events in order; `paceMs` spaces them out (streamed text), never the write. */
  async publish(logged: readonly LoggedEvent[], options: { paceMs?: number } = {}): Promise<void> {
    for (const [index, l] of logged.entries()) {
      if (options.paceMs && index > 0) await sleep(options.paceMs);
      this.bus.publish(l);
    }
  }

  /**
   * Numbers events now but stores (and publishes) them with the next `append`, in the same
   * statement: for events the very next write follows soon (a gated tool call just before its
   * pause, the answers just before the resumed run's first step, a reply just before the run
   * completes). Saves a commit per step; nothing is published before it is stored. Whoever defers
   * either writes next or calls `flush` before waiting on anything slow.
   */
  defer(events: readonly RunEvent[], alongside?: Alongside, options: { paceMs?: number } = {}): void {
    const logged = this.prepare(events);
    this.deferred = {
      groups: [...(this.deferred?.groups ?? []), { logged, paceMs: options.paceMs }],
      alongside: mergeAlongside(this.deferred?.alongside, alongside),
    };
  }

  /** Whether a deferred group is published at a pace (streamed text): it takes a while to go out. */
  get hasPacedDeferred(): boolean {
    return this.deferred?.groups.some((g) => (g.paceMs ?? 0) > 0 && g.logged.length > 1) ?? false;
  }

  /** Stores and publishes what was deferred, now (nothing when nothing was). */
  async flush(): Promise<void> {
    if (this.deferred) await this.append([]);
  }

  /** Drops deferred events (never stored, never seen) and their numbers: the run failed before them. */
  discardDeferred(): void {
    if (!this.deferred) return;
    this.nextSeq = this.deferred.groups[0]?.logged[0]?.seq ?? this.nextSeq;
    this.deferred = undefined;
  }

  /**
   * Publishes streamed text now and stores it soon: the only events a reader may see before they
   * are stored (`EventBus.publishAhead` keeps them for readers who come meanwhile). Answers a
   * promise when the run is `STREAMED_AHEAD_MAX` events ahead of its writes: wait for it.
   */
  stream(events: readonly RunEvent[]): Promise<void> | undefined {
    // A write that failed fails the stream too (the next append tries those events again).
    if (this.storeFailure !== undefined) throw this.storeFailure;
    // Deferred events are published only once stored: streamed text must not overtake them, so
    // whoever streams flushes first (the loop does before a model's turn).
    if (this.deferred) throw new Error("streamed text after deferred events: flush them first");
    const logged = this.prepare(events);
    for (const l of logged) this.bus.publishAhead(l);
    this.unstored.push(...logged);
    this.storing ??= this.storeStreamed().finally(() => (this.storing = undefined));
    return this.unstored.length >= STREAMED_AHEAD_MAX ? this.storing : undefined;
  }

  /** Writes streamed events until none are left; a failed write keeps them for the next append. */
  private async storeStreamed(): Promise<void> {
    while (this.unstored.length > 0 && this.storeFailure === undefined && !this.settling) {
      const batch = this.unstored.slice();
      try {
        await this.store.insert(this.runId, toStoredRows(batch));
      } catch (error) {
        this.storeFailure = error;
        return;
      }
      this.unstored.splice(0, batch.length);
      this.bus.stored(this.runId, batch.at(-1)!.seq);
    }
  }

  /** Waits for streamed writes in flight; answers what is still unstored (to go in the next write). */
  private async settleStreamed(): Promise<LoggedEvent[]> {
    this.settling = true;
    try {
      while (this.storing) await this.storing;
    } finally {
      this.settling = false;
    }
    this.storeFailure = undefined;
    return this.unstored.splice(0);
  }

  /**
   * Gives up on streamed events the database would not take (their numbers stay a gap in the log),
   * so the run's failure can still be stored; true when there were any.
   */
  dropUnstored(): boolean {
    const dropped = this.unstored.length > 0;
    this.unstored = [];
    this.storeFailure = undefined;
    if (dropped) this.bus.stored(this.runId, Number.MAX_SAFE_INTEGER);
    return dropped;
  }

  /** Appends events (after any deferred ones) in one write, then publishes them in order. */
  async append(events: readonly RunEvent[], options: AppendOptions = {}): Promise<LoggedEvent[]> {
    // Streamed text goes first: nothing is stored after a hole in the log.
    const streamed = this.unstored.length > 0 || this.storing ? await this.settleStreamed() : [];
    const carried = this.deferred;
    this.deferred = undefined;
    const fresh = this.prepare(events);
    const groups = [...(carried?.groups ?? []), { logged: fresh, paceMs: options.paceMs }];
    const logged = groups.flatMap((g) => g.logged);
    if (logged.length === 0 && streamed.length === 0 && !options.alongside) return [];
    try {
      await this.store.insert(this.runId, toStoredRows([...streamed, ...logged]), mergeAlongside(carried?.alongside, options.alongside));
      if (streamed.length > 0) this.bus.stored(this.runId, streamed.at(-1)!.seq);
    } catch (error) {
      this.unstored = [...streamed, ...this.unstored];
      // Nothing was stored: hand the new numbers out again so the log keeps no gaps, and keep what
      // was deferred (tool results and their outbox records) for the write that records the failure.
      this.nextSeq = fresh[0]?.seq ?? this.nextSeq;
      this.deferred = carried;
      throw error;
    }
    for (const group of groups) await this.publish(group.logged, { paceMs: group.paceMs });
    return groups.at(-1)!.logged;
  }
}
