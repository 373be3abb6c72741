/**
 * In-process fan-out of logged run events to live readers (AG-UI streams, subscriptions).
 * The event log in the database is the record; the bus only carries what was just appended.
 */
import { endsTransport, type LoggedEvent } from "./events";

type Listener = (event: LoggedEvent) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  publish(event: LoggedEvent): void {
    for (const listener of this.listeners.get(event.runId) ?? []) listener(event);
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
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  /**
   * Live events of one run as an async iterator that ends after the run's terminal event. Each
   * step yields every event that arrived since the last one, so a reader can write them together.
   * Subscribe before the run can emit, so nothing is missed. Breaking out of the loop unsubscribes.
   */
  follow(runId: string): AsyncIterableIterator<LoggedEvent[]> {
    const buffered: LoggedEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const unsubscribe = this.subscribe(runId, (event) => {
      buffered.push(event);
      wake?.();
    });
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
