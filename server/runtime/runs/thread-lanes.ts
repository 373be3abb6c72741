/**
 * One lane per thread: runs of a thread execute one after the other, in the order they arrived, so
 * two runs never execute on one thread at once (the *Double-texting* contract). A run enters its
 * thread's lane before it executes and leaves it when it parks or ends.
 */
export interface LaneTurn {
  /** Runs ahead of this one on the thread (0: it may go at once). */
  ahead: number;
  /** Resolves when every run ahead has left the lane. */
  ready: Promise<void>;
  /** Leaves the lane (also before `ready`, when the run is cancelled while it waits). Idempotent. */
  leave(): void;
}

interface Lane {
  /** Runs holding or waiting for the lane. */
  size: number;
  /** Resolves when the last run that entered has left. */
  tail: Promise<void>;
}

export class ThreadLanes {
  private readonly lanes = new Map<string, Lane>();

  enter(threadId: string): LaneTurn {
    const lane = this.lanes.get(threadId) ?? { size: 0, tail: Promise.resolve() };
    this.lanes.set(threadId, lane);
    const ahead = lane.size;
    lane.size += 1;
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const ready = lane.tail;
    // The next run waits for this one to leave, and for everyone ahead of it (a run that leaves
    // early, cancelled while waiting, must not let the next one overtake those still ahead).
    lane.tail = Promise.all([ready, left]).then(() => undefined);
    let done = false;
    return {
      ahead,
      ready,
      leave: () => {
        if (done) return;
        done = true;
        leave();
        lane.size -= 1;
        if (lane.size === 0 && this.lanes.get(threadId) === lane) this.lanes.delete(threadId);
      },
    };
  }

  /** Threads with a run holding or waiting for their lane in this process. */
  threads(): string[] {
    return [...this.lanes.keys()];
  }

  /** Whether a run holds or waits for the thread's lane in this process. */
  busy(threadId: string): boolean {
    return this.lanes.has(threadId);
  }
}
