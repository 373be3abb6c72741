/**
 * The run service's work in flight: the executions it tracks (so `idle` can wait for them and none
 * fails unhandled), and the requests on their way to start or continue a run here (see `admit`).
 */
import type { Logger } from "pino";
import { HarborError } from "../errors";

export class RunsInFlight {
  private readonly active = new Set<Promise<void>>();
  /**
   * Requests that may start or continue a run here, while they get there (see `admit`); and whether
   * this instance still takes them (a stopping one, once it handed its work over, does not).
   */
  private readonly enteringWork = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly log: Pick<Logger, "error">) {}

  /**
   * Lets a request that may start or continue a run here in — refused with `INSTANCE_STOPPING`
   * (nothing done) once the instance is closed — and counts it until it is done, so that `idle`
   * also waits for a run it is about to drive.
   */
  async admit<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) {
      throw new HarborError(
        "INSTANCE_STOPPING",
        "This Harbor instance is stopping and has handed its work to the others; nothing was done: send it again.",
      );
    }
    const entered = work();
    this.enteringWork.add(entered);
    try {
      return await entered;
    } finally {
      this.enteringWork.delete(entered);
    }
  }

  /** Requests on their way to start or continue a run here. */
  get entering(): number {
    return this.enteringWork.size;
  }

  track(execution: Promise<void>): void {
    // Drives end every run themselves; anything that still escapes is logged, never unhandled.
    const tracked = execution
      .catch((error: unknown) => this.log.error({ err: error }, "a run's execution failed outside its own handling"))
      .finally(() => this.active.delete(tracked));
    this.active.add(tracked);
  }

  /** Nothing more starts or continues here (`INSTANCE_STOPPING`); what already did is waited for by `idle`. */
  close(): void {
    this.closed = true;
  }

  /**
   * Resolves once every tracked execution has finished, and any request on its way to start or
   * continue one, and `alsoWaitFor` (asked anew each round: a look at the cluster's queue).
   */
  async idle(alsoWaitFor: () => Promise<void> | undefined): Promise<void> {
    while (this.active.size > 0 || alsoWaitFor() || this.enteringWork.size > 0) {
      await Promise.allSettled([...this.active, alsoWaitFor(), ...this.enteringWork]);
    }
  }
}
