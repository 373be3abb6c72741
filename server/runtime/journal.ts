/**
 * A run's journal: assigns each event the run's next sequence number, appends it to the event log,
 * and only then publishes it. The run is executed by one process, which therefore owns the counter;
 * the (run_id, seq) primary key turns any second writer into a loud failure.
 */
import type { EventBus } from "./event-bus";
import type { LoggedEvent, RunEvent } from "./events";

export interface EventStore {
  insert(runId: string, events: readonly { seq: number; type: string; data: Record<string, unknown> }[]): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RunJournal {
  private nextSeq: number;

  constructor(
    readonly runId: string,
    private readonly store: EventStore,
    private readonly bus: EventBus,
    lastSeq = 0,
  ) {
    this.nextSeq = lastSeq + 1;
  }

  /**
   * Appends events in one write, then publishes them in order.
   * `paceMs` spaces out publication (streamed text), never the write.
   */
  async append(events: readonly RunEvent[], options: { paceMs?: number } = {}): Promise<LoggedEvent[]> {
    const at = Date.now();
    const logged = events.map((event) => ({ runId: this.runId, seq: this.nextSeq++, at, event }));
    await this.store.insert(
      this.runId,
      logged.map((l) => ({ seq: l.seq, type: l.event.type, data: l.event as unknown as Record<string, unknown> })),
    );
    for (const [index, l] of logged.entries()) {
      if (options.paceMs && index > 0) await sleep(options.paceMs);
      this.bus.publish(l);
    }
    return logged;
  }
}
