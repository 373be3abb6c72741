import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, requestIdFrom } from "@/server/log";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: "info", destination }), lines };
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

  it("take a well-formed caller request id and replace anything else", () => {
    expect(requestIdFrom(new Headers({ "x-request-id": "abc-123" }))).toBe("abc-123");
    const replaced = requestIdFrom(new Headers({ "x-request-id": 'bad id {"x":1}' }));
    expect(replaced).not.toContain(" ");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
});
