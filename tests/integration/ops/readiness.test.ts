/**
 * Readiness as a balancer reads it: ready while the database answers the background probe; not
 * ready once the instance stops, once the embedded database's thread restarts or is given up, or
 * once the database has not answered for a while — always answered from what the probe last saw.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { readinessProbe, type ReadinessProbe } from "@/server/ops/readiness";
import type { LoadReading } from "@/server/runtime";

const LOAD: LoadReading = {
  eventLoopDelayMs: 3,
  sustainedEventLoopDelayMs: 1,
  activeRuns: 0,
  queuedRuns: 0,
  enteringRuns: 0,
  shedding: false,
};

describe("readiness", () => {
  const probes: ReadinessProbe[] = [];
  const handles: DatabaseHandle[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const probe of probes.splice(0)) probe.stop();
    for (const handle of handles.splice(0)) await handle.close().catch(() => undefined);
  });

  const start = async (edit: (handle: DatabaseHandle) => DatabaseHandle = (h) => h) => {
    const handle = await openDatabase({ engine: "pglite" });
    handles.push(handle);
    const probe = readinessProbe(edit(handle), () => undefined);
    probes.push(probe);
    return { handle, probe };
  };

  it("is ready while the database answers, and says not ready once the instance stops", async () => {
    const { probe } = await start();
    expect(probe.read({ stopping: false, load: LOAD })).toEqual({ ready: true, database: "ok", stopping: false, load: LOAD });
    expect(probe.read({ stopping: true, load: LOAD })).toMatchObject({ ready: false, stopping: true });
  });

  it("says not ready while the embedded database's thread restarts, or once it was given up", async () => {
    let state: "up" | "restarting" | "dead" = "restarting";
    const { probe } = await start((h) => ({ ...h, engineState: () => state }));
    expect(probe.read({ stopping: false, load: LOAD })).toMatchObject({ ready: false, database: "restarting" });
    state = "dead";
    expect(probe.read({ stopping: false, load: LOAD })).toMatchObject({ ready: false, database: "dead" });
    state = "up";
    expect(probe.read({ stopping: false, load: LOAD })).toMatchObject({ ready: true, database: "ok" });
  });

  it("says slow while a probe fails but the last answer is recent, and unreachable after 5 s without one", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval"] });
    const { handle, probe } = await start((h) => ({ ...h, engineState: () => "up" }));
    await handle.close(); // the database stops answering
    await vi.advanceTimersByTimeAsync(1_100);
    expect(probe.read({ stopping: false, load: LOAD })).toMatchObject({ ready: true, database: "slow" });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probe.read({ stopping: false, load: LOAD })).toMatchObject({ ready: false, database: "unreachable" });
  });
});
