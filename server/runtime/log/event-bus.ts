/**
 * In-process fan-out of logged run events to live readers (AG-UI streams, subscriptions).
 * The event log in the database is the record; the bus only carries what was just appended.
 */
import { endsTransport, type LoggedEvent } from "./events";

type Listener = (event: LoggedEvent) => void;

/** One reader of one run: what it was last handed (undefined: everything from now on is new to it). */
interface Reader {
  listener: Listener;
  seq: number | undefined;
}

/** What a subscription can do besides receiving: say how far it has read the log by itself, and stop. */
export interface Subscription {
  /** The reader holds the run's events up to `seq` (read from the log): only later ones reach it. */
  advance(seq: number): void;
  unsubscribe(): void;
}

export class EventBus {
  private readonly readers = new Map<string, Set<Reader>>();
  /** Called when a reader says where it stands: events stored by another instance may be waiting for it. */
  onPositioned: ((runId: string) => void) | undefined;

  /** Listeners of every run's events (the run lists' feeds): each gets every published event. */
  private readonly everything = new Set<Listener>();

  /**
   * Events published before they were stored (a model's streamed text), per run, until stored: a
   * reader who reads the log meanwhile finds the rest here (`ahead`).
   */
  private readonly unstored = new Map<string, LoggedEvent[]>();

  /** Publishes an event not yet stored, and holds it until `stored` says it is. */
  publishAhead(event: LoggedEvent): void {
    let held = this.unstored.get(event.runId);
    if (!held) this.unstored.set(event.runId, (held = []));
    held.push(event);
    this.publish(event);
  }

  /** The run's events up to `seq` are stored: readers find them in the log now. */
  stored(runId: string, seq: number): void {
    const held = this.unstored.get(runId);
    if (!held) return;
    const kept = held.filter((e) => e.seq > seq);
    if (kept.length > 0) this.unstored.set(runId, kept);
    else this.unstored.delete(runId);
  }

  /** The run's published events after `seq` that are not stored yet, in order. */
  ahead(runId: string, seq: number): LoggedEvent[] {
    return (this.unstored.get(runId) ?? []).filter((e) => e.seq > seq);
  }

  publish(event: LoggedEvent): void {
    for (const listener of this.everything) listener(event);
    for (const reader of this.readers.get(event.runId) ?? []) {
      // Each reader gets each event once, in order — the same event may arrive twice (written here,
      // and read back from the log for a reader of another instance's run).
      if (reader.seq !== undefined && event.seq <= reader.seq) continue;
      reader.seq = event.seq;
      reader.listener(event);
    }
  }

  /**
   * Every event published here from now on, of any run (the same one may come twice); the returned
   * function stops it. For feeds that only need to know that something happened to a run.
   */
  subscribeAll(listener: Listener): () => void {
    this.everything.add(listener);
    return () => this.everything.delete(listener);
  }

  subscribe(runId: string, listener: Listener, afterSeq?: number): Subscription {
    let set = this.readers.get(runId);
    if (!set) {
      set = new Set();
      this.readers.set(runId, set);
    }
    const reader: Reader = { listener, seq: afterSeq };
    set.add(reader);
    if (afterSeq !== undefined) this.onPositioned?.(runId);
    return {
      advance: (seq) => {
        if (reader.seq === undefined || seq > reader.seq) reader.seq = seq;
        this.onPositioned?.(runId);
      },
      unsubscribe: () => {
        set.delete(reader);
        // Only this set: a later subscription of the same run has its own.
        if (set.size === 0 && this.readers.get(runId) === set) this.readers.delete(runId);
      },
    };
  }

  /**
   * Where the readers of a run stand: the lowest seq one of them holds (events after it may be
   * missing for someone), or undefined when no reader of it knows where it stands.
   */
  position(runId: string): number | undefined {
    let lowest: number | undefined;
    for (const reader of this.readers.get(runId) ?? []) {
      if (reader.seq !== undefined && (lowest === undefined || reader.seq < lowest)) lowest = reader.seq;
    }
    return lowest;
  }

  /** Runs someone reads. */
  watched(): string[] {
    return [...this.readers.keys()];
  }

  /**
   * Live events of one run as an async iterator that ends after the run's terminal event. Each
   * step yields every event that arrived since the last one, so a reader can write them together.
   * Subscribe before the run can emit, so nothing is missed. Breaking out of the loop unsubscribes.
   */
  follow(runId: string, afterSeq?: number): AsyncIterableIterator<LoggedEvent[]> {
    const buffered: LoggedEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    // A reader continuing from a known point (another instance writes the run): events after it follow.
    const { unsubscribe } = this.subscribe(
      runId,
      (event) => {
        buffered.push(event);
        wake?.();
      },
      afterSeq,
    );
    const finish = (): IteratorResult<LoggedEvent[]> => {
      done = true;
      unsubscribe();
      // A reader still waiting in next() must settle, or it stays in memory for good.
      wake?.();
      return { done: true, value: undefined };
    };
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      async next() {
        while (!done) {
          if (buffered.length > 0) {
            const terminal = buffered.findIndex((e) => endsTransport(e.event));
            const batch = buffered.splice(0, terminal === -1 ? buffered.length : terminal + 1);
            if (terminal !== -1) {
              done = true;
              unsubscribe();
            }
            return { done: false, value: batch };
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
        return finish();
      },
      async return() {
        return finish();
      },
    };
  }
}
