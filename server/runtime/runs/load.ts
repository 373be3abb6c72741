/**
 * How loaded this process is, and whether it sheds new runs. A process that takes every run it is
 * sent stalls every request it serves, health checks too; past a limit it is better to refuse new
 * runs at once (`OVERLOADED`, HTTP 503 with Retry-After) so the balancer and the client try again
 * elsewhere or later, while the runs already taken go on at full speed.
 *
 * Two signals, either enough: the event loop's delay (how long a request's callback waits before it
 * runs: everything this process does queues behind it) when it stays high, and the runs waiting here
 * for a slot. Answers to open pauses and steering are never shed: they finish work rather than add it.
 *
 * The delay sheds only when it is sustained: past the limit in most of the last few seconds. One
 * stall is not overload — a cold instance stalls for a second or more loading the code of its first
 * pages and routes on a busy machine, and a long garbage collection does too — and shedding on it
 * refused a fresh instance's very first run.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { HarborError } from "../errors";

export interface LoadLimits {
  /** The event loop's sustained delay (see `sustainedDelayMs`) past which new runs are refused; 0: never. */
  maxEventLoopDelayMs: number;
  /** Runs waiting here for a slot past which new runs are refused; 0: never. */
  maxQueuedRuns: number;
}

export interface LoadReading {
  /** The event loop's worst delay over the last second, in ms. */
  eventLoopDelayMs: number;
  /** The delay shedding reads: the median of the worst delays of the last five seconds, in ms. */
  sustainedEventLoopDelayMs: number;
  activeRuns: number;
  queuedRuns: number;
  /** Requests on their way to start or continue a run here. */
  enteringRuns: number;
  /** Whether new runs are refused now. */
  shedding: boolean;
}

/** How often the delay's window turns over: a burst is forgotten this long after it passed. */
const WINDOW_MS = 1_000;
/** How many of the last windows say whether a delay is sustained: it must be past the limit in most of them. */
export const SUSTAINED_WINDOWS = 5;

/**
 * The delay that stayed: the median of the windows' worst delays (newest last, at most
 * `SUSTAINED_WINDOWS`), windows not measured yet — a process that just started — counting as none.
 * With five windows, the delay must have passed it in three of the last five seconds.
 */
export function sustainedDelayMs(windows: readonly number[]): number {
  const recent = windows.slice(-SUSTAINED_WINDOWS);
  const all = [...recent, ...Array<number>(SUSTAINED_WINDOWS - recent.length).fill(0)].sort((a, b) => a - b);
  return all[Math.floor(SUSTAINED_WINDOWS / 2)]!;
}

/**
 * The process's event loop delay, measured once for the whole process (every runtime in it shares
 * one event loop): the worst delay of each window of about a second, for the last few windows.
 */
class EventLoopDelay {
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  /** The worst delay of each closed window, newest last. */
  private readonly windows: number[] = [];

  constructor() {
    this.histogram.enable();
    setInterval(() => {
      this.windows.push(this.histogram.max / 1e6);
      if (this.windows.length > SUSTAINED_WINDOWS) this.windows.shift();
      this.histogram.reset();
    }, WINDOW_MS).unref();
  }

  /** The worst delay seen in the last second (the window closed, or the one filling now), in ms. */
  worstMs(): number {
    return Math.round(Math.max(this.windows.at(-1) ?? 0, this.histogram.max / 1e6));
  }

  /** The delay that stayed over the last windows (see `sustainedDelayMs`), in ms. */
  sustainedMs(): number {
    return Math.round(sustainedDelayMs(this.windows));
  }
}

let processDelay: EventLoopDelay | undefined;

export class LoadGauge {
  private readonly delay = (processDelay ??= new EventLoopDelay());

  constructor(
    private readonly limits: LoadLimits,
    private readonly counts: () => { activeRuns: number; queuedRuns: number; enteringRuns: number },
  ) {}

  read(): LoadReading {
    const counts = this.counts();
    const sustainedEventLoopDelayMs = this.delay.sustainedMs();
    return {
      eventLoopDelayMs: this.delay.worstMs(),
      sustainedEventLoopDelayMs,
      ...counts,
      shedding: this.overloaded(sustainedEventLoopDelayMs, counts.queuedRuns),
    };
  }

  /** Refuses a new run with `OVERLOADED` when this process is past its limits. */
  admitNewRun(): void {
    const delay = this.delay.sustainedMs();
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
