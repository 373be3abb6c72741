import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { createLogger } from "@/server/log";
import { childOnFirstLine } from "@/server/runtime/run-log";

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}

describe("a run's log", () => {
  it("stamps each line with the run's bindings, as a child logger does", () => {
    const { logger, lines } = capture("info");
    const log = childOnFirstLine(logger, { runId: "r1", threadId: "t1", requestId: undefined });
    log.info({ step: 1 }, "first");
    log.error({ err: new Error("boom") }, "second");
    expect(lines).toMatchObject([
      { runId: "r1", threadId: "t1", step: 1, msg: "first", level: 30 },
      { runId: "r1", threadId: "t1", msg: "second", level: 50, err: { message: "boom" } },
    ]);
    expect(lines[0]).not.toHaveProperty("requestId");
  });

  it("makes the child once, on the first line written, and not at all for lines below the level", () => {
    const { logger, lines } = capture("warn");
    const child = vi.spyOn(logger, "child");
    const log = childOnFirstLine(logger, { runId: "r2" });
    log.info({}, "not written");
    expect(child).not.toHaveBeenCalled();
    log.warn({}, "written");
    log.error({}, "written too");
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => l.msg)).toEqual(["written", "written too"]);
  });

  it("still redacts what a line carries", () => {
    const { logger, lines } = capture("info");
    childOnFirstLine(logger, { runId: "r3" }).warn({ apiKey: "sk-live-789", detail: { token: "hbr_x" } }, "careful");
    expect(JSON.stringify(lines)).not.toMatch(/sk-live-789|hbr_x/);
  });
});
