/**
 * Load shedding's rule: past either limit a new run is refused with OVERLOADED and a Retry-After;
 * under both, taken. The event loop's delay counts only when it stays: one stall (a cold instance
 * loading its first routes) is not overload.
 */
import { describe, expect, it } from "vitest";
import { HarborError } from "@/server/runtime";
import { LoadGauge, sustainedDelayMs } from "@/server/runtime/runs/load";

const counts = (queuedRuns: number) => () => ({ activeRuns: 1, queuedRuns, enteringRuns: 0 });

function refusal(gauge: LoadGauge): HarborError | undefined {
  try {
    gauge.admitNewRun();
    return undefined;
  } catch (error) {
    if (HarborError.is(error)) return error;
    throw error;
  }
}

describe("load shedding", () => {
  it("takes new runs up to the queue limit and refuses the next with OVERLOADED and a Retry-After", () => {
    expect(refusal(new LoadGauge({ maxEventLoopDelayMs: 0, maxQueuedRuns: 5 }, counts(5)))).toBeUndefined();
    const shed = refusal(new LoadGauge({ maxEventLoopDelayMs: 0, maxQueuedRuns: 5 }, counts(6)));
    expect(shed?.code).toBe("OVERLOADED");
    expect(shed?.details.retryAfterS).toBeGreaterThanOrEqual(1);
  });

  it("reads a delay as sustained when it passed it in three of the last five seconds", () => {
    // A process that just started: the seconds not measured yet count as no delay.
    expect(sustainedDelayMs([])).toBe(0);
    expect(sustainedDelayMs([1_100])).toBe(0);
    expect(sustainedDelayMs([900, 1_100])).toBe(0);
    // A cold start on a busy machine: two stalls in a row, then quiet.
    expect(sustainedDelayMs([830, 1_078, 267, 14, 12])).toBe(267);
    expect(sustainedDelayMs([1_200, 1_500, 1_100])).toBe(1_100);
    expect(sustainedDelayMs([5, 1_200, 8, 1_500, 1_100])).toBe(1_100);
    // Only the last five seconds count.
    expect(sustainedDelayMs([2_000, 2_000, 2_000, 3, 4, 5, 6, 7])).toBe(5);
  });

  /** Hogs the event loop for `ms` in one callback, as loading a route's code on a busy machine does. */
  const hog = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("takes new runs through one stall of the event loop, however long: a cold instance's first run is not shed", async () => {
    const gauge = new LoadGauge({ maxEventLoopDelayMs: 100, maxQueuedRuns: 0 }, counts(0));
    await sleep(50); // the delay is measured from the loop's next turn on
    hog(400);
    await sleep(30);
    expect(gauge.read()).toMatchObject({ shedding: false });
    expect(gauge.read().eventLoopDelayMs).toBeGreaterThanOrEqual(300);
    expect(refusal(gauge)).toBeUndefined();
  });

  it("refuses new runs while the event loop stays behind past its limit, and takes them again once it caught up", async () => {
    const gauge = new LoadGauge({ maxEventLoopDelayMs: 100, maxQueuedRuns: 0 }, counts(0));
    // Behind in every second for four seconds: 300 ms callbacks, one after the other.
    const until = Date.now() + 4_200;
    while (Date.now() < until) {
      hog(300);
      await sleep(1);
    }
    expect(gauge.read()).toMatchObject({ shedding: true });
    expect(gauge.read().sustainedEventLoopDelayMs).toBeGreaterThan(100);
    expect(refusal(gauge)?.code).toBe("OVERLOADED");
    // Quiet for most of the last five seconds: taken again.
    await sleep(4_200);
    expect(refusal(gauge)).toBeUndefined();
  }, 15_000);

  it("never sheds with both limits off", () => {
    expect(refusal(new LoadGauge({ maxEventLoopDelayMs: 0, maxQueuedRuns: 0 }, counts(1_000_000)))).toBeUndefined();
  });
});
