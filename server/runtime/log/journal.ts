/**
 * A run's journal: assigns each event the run's next sequence number, appends it to the event log,
 * and only then publishes it. The run is executed by one process, which therefore owns the counter;
 * the (run_id, seq) primary key turns any second writer into a loud failure.
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

  /** Appends events (after any deferred ones) in one write, then publishes them in order. */
  async append(events: readonly RunEvent[], options: AppendOptions = {}): Promise<LoggedEvent[]> {
    const carried = this.deferred;
    this.deferred = undefined;
    const fresh = this.prepare(events);
    const groups = [...(carried?.groups ?? []), { logged: fresh, paceMs: options.paceMs }];
    const logged = groups.flatMap((g) => g.logged);
    if (logged.length === 0 && !options.alongside) return [];
    try {
      await this.store.insert(this.runId, toStoredRows(logged), mergeAlongside(carried?.alongside, options.alongside));
    } catch (error) {
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
