import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { childOnFirstLine, createLogger, requestIdFrom } from "@/server/log";

function capture(level = "info") {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}

describe("structured logs", () => {
  it("write JSON with the request id", () => {
    const { logger, lines } = capture();
    logger.child({ requestId: "req-1" }).info({ runId: "r" }, "run started");
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: "req-1", runId: "r", msg: "run started", service: "harbor" });
  });

  it("never write secrets or private values, at any of the configured depths", () => {
    const { logger, lines } = capture();
    logger.info(
      {
        password: "hunter2",
        token: "hbr_secret",
        headers: { authorization: "Bearer hbr_secret", cookie: "authjs.session-token=abc" },
        resume: [{ interruptId: "i", payload: { apiKey: "sk-live-123" } }],
        body: { user: { apiKey: "sk-live-456" } },
      },
      "request",
    );
    const line = lines.join("");
    for (const secret of ["hunter2", "hbr_secret", "session-token=abc", "sk-live-123", "sk-live-456"]) {
      expect(line).not.toContain(secret);
    }
    expect(line).toContain("[redacted]");
  });

  it("keep a failed query's values out of logged errors, including their causes", () => {
    const { logger, lines } = capture();
    const driverError = Object.assign(new Error("invalid byte sequence"), { params: ["hbr_token_hash", "my secret message"] });
    const queryError = Object.assign(
      new Error("Failed query: insert into messages (content) values ($1)\nparams: my secret message,hbr_token_hash"),
      { params: ["my secret message", "hbr_token_hash"], cause: driverError },
    );
    logger.error({ err: queryError }, "run failed");
    const line = lines.join("");
    expect(line).not.toContain("my secret message");
    expect(line).not.toContain("hbr_token_hash");
    expect(line).toContain("Failed query: insert into messages");
    expect(JSON.parse(line).err.stack).toContain("    at ");
  });

  it("keep the context PostgreSQL quotes around a bad value out of logged errors", () => {
    const { logger, lines } = capture();
    const driverError = Object.assign(new Error("Unicode low surrogate must follow a high surrogate."), {
      code: "22P02",
      where: 'JSON data, line 1: ...,"content":"my secret message\\udc00',
    });
    logger.error({ err: driverError }, "run failed");
    logger.error({ err: Object.assign(new Error("Failed query: select 1"), { cause: driverError }) }, "run failed");
    expect(lines.join("")).not.toContain("my secret message");
    expect(JSON.parse(lines[0]!).err).toMatchObject({ code: "22P02", message: "Unicode low surrogate must follow a high surrogate." });
  });

  it("take a well-formed caller request id and replace anything else", () => {
    expect(requestIdFrom(new Headers({ "x-request-id": "abc-123" }))).toBe("abc-123");
    const replaced = requestIdFrom(new Headers({ "x-request-id": 'bad id {"x":1}' }));
    expect(replaced).not.toContain(" ");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("a request's or a run's log lines", () => {
  const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it("are stamped with its bindings, as a child logger's are", () => {
    const { logger, lines } = capture();
    const log = childOnFirstLine(logger, { runId: "r1", threadId: "t1", requestId: undefined });
    log.info({ step: 1 }, "first");
    log.error({ err: new Error("boom") }, "second");
    expect(parsed(lines)).toMatchObject([
      { runId: "r1", threadId: "t1", step: 1, msg: "first", level: 30 },
      { runId: "r1", threadId: "t1", msg: "second", level: 50, err: { message: "boom" } },
    ]);
    expect(parsed(lines)[0]).not.toHaveProperty("requestId");
  });

  it("make the child once, on the first line written, and not at all for lines below the level", () => {
    const { logger, lines } = capture("warn");
    const child = vi.spyOn(logger, "child");
    const log = childOnFirstLine(logger, { runId: "r2" });
    log.info({}, "not written");
    expect(child).not.toHaveBeenCalled();
    log.warn({}, "written");
    log.error({}, "written too");
    expect(child).toHaveBeenCalledTimes(1);
    expect(parsed(lines).map((l) => l.msg)).toEqual(["written", "written too"]);
  });

  it("are still redacted", () => {
    const { logger, lines } = capture();
    childOnFirstLine(logger, { runId: "r3" }).warn({ apiKey: "sk-live-789", detail: { token: "hbr_x" } }, "careful");
    expect(lines.join("")).not.toMatch(/sk-live-789|hbr_x/);
    expect(lines.join("")).toContain("[redacted]");
  });
});
