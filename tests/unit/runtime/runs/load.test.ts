/** Load shedding's rule: past either limit a new run is refused with OVERLOADED and a Retry-After; under both, taken. */
import { describe, expect, it } from "vitest";
import { HarborError } from "@/server/runtime";
import { LoadGauge } from "@/server/runtime/runs/load";

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

  it("refuses new runs while the event loop falls behind past its limit, and takes them again once it caught up", async () => {
    const gauge = new LoadGauge({ maxEventLoopDelayMs: 100, maxQueuedRuns: 0 }, counts(0));
    await new Promise((r) => setTimeout(r, 50)); // the delay is measured from the loop's next turn on
    const until = Date.now() + 300;
    while (Date.now() < until); // a callback hogging the event loop for 300 ms
    await new Promise((r) => setTimeout(r, 30));
    expect(gauge.read()).toMatchObject({ shedding: true });
    expect(refusal(gauge)?.code).toBe("OVERLOADED");
    // The window turns over each second: two later, the burst is forgotten.
    await new Promise((r) => setTimeout(r, 2_100));
    expect(refusal(gauge)).toBeUndefined();
  });

  it("never sheds with both limits off", () => {
    expect(refusal(new LoadGauge({ maxEventLoopDelayMs: 0, maxQueuedRuns: 0 }, counts(1_000_000)))).toBeUndefined();
  });
});
