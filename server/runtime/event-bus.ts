/**
 * In-process fan-out of logged run events to live readers (AG-UI streams, subscriptions).
 * The event log in the database is the record; the bus only carries what was just appended.
 */
import { endsTransport, type LoggedEvent } from "./events";

type Listener = (event: LoggedEvent) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** The last seq handed out per run with listeners: an event is handed out once, in order. */
  private readonly seen = new Map<string, number>();

  publish(event: LoggedEvent): void {
    const listeners = this.listeners.get(event.runId);
    if (!listeners) return;
    // The same event may arrive twice (written here, and read back for another instance's reader).
    if (event.seq <= (this.seen.get(event.runId) ?? 0)) return;
    this.seen.set(event.runId, event.seq);
    for (const listener of listeners) listener(event);
  }

  subscribe(runId: string, listener: Listener): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) {
        this.listeners.delete(runId);
        this.seen.delete(runId);
      }
    };
  }

  /** Runs someone listens to, with the last seq they were handed (undefined: none yet, and no starting point). */
  watched(): [runId: string, seq: number | undefined][] {
    return [...this.listeners.keys()].map((runId) => [runId, this.seen.get(runId)]);
  }

  /** The last seq handed out for a watched run, if any. */
  lastSeq(runId: string): number | undefined {
    return this.seen.get(runId);
  }

  /** Listeners of `runId` already hold its events up to `seq` (read from the log): later ones follow. */
  mark(runId: string, seq: number): void {
    if (this.listeners.has(runId) && seq > (this.seen.get(runId) ?? 0)) this.seen.set(runId, seq);
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
    const unsubscribe = this.subscribe(runId, (event) => {
      buffered.push(event);
      wake?.();
    });
    // A reader continuing from a known point (another instance writes the run): events after it follow.
    if (afterSeq !== undefined) this.mark(runId, afterSeq);
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
