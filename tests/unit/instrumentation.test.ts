/**
 * `next build` loads instrumentation.ts in the workers that prerender pages. A build must not
 * start Harbor there: no database opened (the embedded folder would be locked and migrated by a
 * build), no demo peers started.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const start = vi.fn(async () => {});
vi.mock("@/server/lifecycle", () => ({ start }));

describe("instrumentation's register", () => {
  const saved = { runtime: process.env.NEXT_RUNTIME, phase: process.env.NEXT_PHASE };
  beforeEach(() => {
    start.mockClear();
    process.env.NEXT_RUNTIME = "nodejs";
  });
  afterEach(() => {
    for (const [key, value] of [
      ["NEXT_RUNTIME", saved.runtime],
      ["NEXT_PHASE", saved.phase],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it("starts Harbor in a serving process", async () => {
    delete process.env.NEXT_PHASE;
    const { register } = await import("@/instrumentation");
    await register();
    expect(start).toHaveBeenCalledOnce();
  });

  it("starts nothing while `next build` prerenders", async () => {
    process.env.NEXT_PHASE = "phase-production-build";
    const { register } = await import("@/instrumentation");
    await register();
    expect(start).not.toHaveBeenCalled();
  });
});
