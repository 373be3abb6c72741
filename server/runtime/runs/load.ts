/**
 * How loaded this process is, and whether it sheds new runs. A process that takes every run it is
 * sent stalls every request it serves, health checks too; past a limit it is better to refuse new
 * runs at once (`OVERLOADED`, HTTP 503 with Retry-After) so the balancer and the client try again
 * elsewhere or later, while the runs already taken go on at full speed.
 *
 * Two signals, either enough: the event loop's delay (how long a request's callback waits before it
 * runs: everything this process does queues behind it), and the runs waiting here for a slot.
 * Answers to open pauses and steering are never shed: they finish work rather than add it.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { HarborError } from "../errors";

export interface LoadLimits {
  /** The event loop's delay (the worst of the last second) past which new runs are refused; 0: never. */
  maxEventLoopDelayMs: number;
  /** Runs waiting here for a slot past which new runs are refused; 0: never. */
  maxQueuedRuns: number;
}

export interface LoadReading {
  /** The event loop's worst delay over the last second, in ms. */
  eventLoopDelayMs: number;
  activeRuns: number;
  queuedRuns: number;
  /** Requests on their way to start or continue a run here. */
  enteringRuns: number;
  /** Whether new runs are refused now. */
  shedding: boolean;
}

/** How often the delay's window turns over: a burst is forgotten this long after it passed. */
const WINDOW_MS = 1_000;

/**
 * The process's event loop delay, measured once for the whole process (every runtime in it shares
 * one event loop): the worst delay of the last full window, and of the one filling now.
 */
class EventLoopDelay {
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private lastWindowMs = 0;

  constructor() {
    this.histogram.enable();
    setInterval(() => {
      this.lastWindowMs = this.histogram.max / 1e6;
      this.histogram.reset();
    }, WINDOW_MS).unref();
  }

  /** The worst delay seen in the last second (the window closed, or the one filling now), in ms. */
  worstMs(): number {
    return Math.round(Math.max(this.lastWindowMs, this.histogram.max / 1e6));
  }
}

let processDelay: EventLoopDelay | undefined;

export class LoadGauge {
  private readonly delay = (processDelay ??= new EventLoopDelay());

  constructor(
    private readonly limits: LoadLimits,
    private readonly counts: () => { activeRuns: number; queuedRuns: number; enteringRuns: number },
  ) {}

  eventLoopDelayMs(): number {
    return this.delay.worstMs();
  }

  read(): LoadReading {
    const counts = this.counts();
    const eventLoopDelayMs = this.eventLoopDelayMs();
    return { eventLoopDelayMs, ...counts, shedding: this.overloaded(eventLoopDelayMs, counts.queuedRuns) };
  }

  /** Refuses a new run with `OVERLOADED` when this process is past its limits. */
  admitNewRun(): void {
    const delay = this.eventLoopDelayMs();
    const { queuedRuns } = this.counts();
    if (!this.overloaded(delay, queuedRuns)) return;
    throw new HarborError("OVERLOADED", "This Harbor instance is busy and took nothing: send the request again in a moment.", {
      retryAfterS: Math.max(1, Math.ceil(delay / 1_000)),
    });
  }

  private overloaded(delayMs: number, queuedRuns: number): boolean {
    const { maxEventLoopDelayMs, maxQueuedRuns } = this.limits;
    return (maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs) || (maxQueuedRuns > 0 && queuedRuns > maxQueuedRuns);
  }
}
