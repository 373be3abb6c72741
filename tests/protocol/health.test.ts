/**
 * Health that tells the truth: alive and ready answered from memory, ready turning 503 once the
 * instance shuts down, and new runs shed with 503 OVERLOADED (Retry-After, nothing stored) once
 * the instance is past its limits — while the runs it took go on. The event loop's delay sheds only
 * when it stays: a cold instance that stalls once takes its first run.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postRun, runInput, userMessage } from "../helpers/agui";
import { readSse, signIn, trpcQuery, type Auth } from "../helpers/http";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

interface Ready {
  instance: string;
  ready: boolean;
  database: string;
  stopping: boolean;
  load: {
    eventLoopDelayMs: number;
    sustainedEventLoopDelayMs: number;
    activeRuns: number;
    queuedRuns: number;
    enteringRuns: number;
    shedding: boolean;
  };
}

const ready = async (url: string) => {
  const res = await fetch(`${url}/api/health/ready`);
  return { status: res.status, body: (await res.json()) as Ready };
};

/** Polls `check` every 50 ms until it holds (or fails after `ms`). */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(OWN_ENGINES)("health and load shedding on $name", ({ name }) => {
  let server: OwnServer;
  let alice: Auth;

  beforeAll(async () => {
    // One run executes at a time; past one more waiting, new runs are shed.
    server = await startOwnServer(name, "health", {
      HARBOR_MAX_ACTIVE_RUNS: "1",
      HARBOR_SHED_QUEUED_RUNS: "1",
      HARBOR_STEP_MS: "100",
      HARBOR_SHUTDOWN_GRACE_MS: "4000",
    });
    alice = { cookie: await signIn(server.url, "alice@acme.test") };
  });

  afterAll(async () => {
    await server?.dispose();
  });

  it("answers alive and ready, with this instance's id and load", async () => {
    const alive = await fetch(`${server.url}/api/health`);
    expect(alive.status).toBe(200);
    const { instance } = (await alive.json()) as { instance: string };
    const { status, body } = await ready(server.url);
    expect(status).toBe(200);
    expect(body).toMatchObject({ instance, ready: true, database: "ok", stopping: false });
    expect(body.load).toMatchObject({ activeRuns: 0, queuedRuns: 0, shedding: false });
  });

  it("sheds a new run past its limit with 503 OVERLOADED and Retry-After, storing nothing; the runs it took finish", async () => {
    const start = (message: string, threadId = randomUUID()) => postRun(server.url, alice, runInput(threadId, [userMessage(message)]));
    const taken = [await start("count slowly to 20"), await start("count slowly to 2"), await start("count slowly to 2")];
    expect(taken.map((r) => r.status)).toEqual([200, 200, 200]);
    const busy = await until(
      () => ready(server.url),
      (r) => r.body.load.queuedRuns === 2,
    );
    expect(busy.status).toBe(200);
    expect(busy.body.load).toMatchObject({ activeRuns: 1, queuedRuns: 2, shedding: true });

    const threadId = randomUUID();
    const shed = await start("hello", threadId);
    expect(shed.status).toBe(503);
    expect(Number(shed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await shed.json()) as { error: { code: string } }).error.code).toBe("OVERLOADED");
    expect((await trpcQuery(server.url, alice, "threads.get", { threadId })).error?.data?.code).toBe("NOT_FOUND");

    // What was taken runs to its end; then new runs are taken again.
    for (const res of taken) expect((await readSse(res)).at(-1)?.data).toContain("RUN_FINISHED");
    const after = await start("hello");
    expect(after.status).toBe(200);
    await readSse(after);
  }, 60_000);

  it("says not ready once it shuts down, while its runs get their grace period", async () => {
    const counting = postRun(server.url, alice, runInput(randomUUID(), [userMessage("count slowly to 100")]));
    await until(
      () => ready(server.url),
      (r) => r.body.load.activeRuns === 1,
    );
    process.kill(server.pid, "SIGTERM");
    const stopping = await until(
      () => ready(server.url),
      (r) => r.status === 503,
    );
    expect(stopping.status).toBe(503);
    expect(stopping.body).toMatchObject({ ready: false, stopping: true });
    await (await counting).text().catch(() => "cut");
  }, 60_000);
});

/** Stops the server's process for `ms`, as a machine too busy to run it does: its event loop is that late when it runs again. */
async function stall(pid: number, ms: number): Promise<void> {
  process.kill(pid, "SIGSTOP");
  await new Promise((r) => setTimeout(r, ms));
  process.kill(pid, "SIGCONT");
}

describe.each(OWN_ENGINES)("shedding on the event loop's delay on $name: sustained only", ({ name }) => {
  let server: OwnServer;
  let alice: Auth;
  const start = () => postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")]));

  beforeAll(async () => {
    // The default limit: past 1000 ms.
    server = await startOwnServer(name, "health-delay");
    alice = { cookie: await signIn(server.url, "alice@acme.test") };
  });

  afterAll(async () => {
    await server?.dispose();
  });

  it("takes a cold instance's first run right after its event loop stalled past the limit once", async () => {
    // A fresh instance on a busy machine stalls for a second or more loading its first routes.
    await stall(server.pid, 1_500);
    const seen = await ready(server.url);
    expect(seen.body.load.eventLoopDelayMs).toBeGreaterThanOrEqual(1_000);
    expect(seen.body.load.shedding).toBe(false);
    const first = await start();
    expect(first.status).toBe(200);
    expect((await readSse(first)).at(-1)?.data).toContain("RUN_FINISHED");
  }, 30_000);

  it("sheds new runs while its event loop stays behind past the limit, and takes them again once it caught up", async () => {
    // More than a second behind in every second, for about six seconds.
    for (let i = 0; i < 5; i++) {
      await stall(server.pid, 1_300);
      await new Promise((r) => setTimeout(r, 100));
    }
    const behind = await ready(server.url);
    expect(behind.body.load).toMatchObject({ shedding: true });
    expect(behind.body.load.sustainedEventLoopDelayMs).toBeGreaterThan(1_000);
    const shed = await start();
    expect(shed.status).toBe(503);
    expect(Number(shed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await shed.json()) as { error: { code: string } }).error.code).toBe("OVERLOADED");

    const caughtUp = await until(
      () => ready(server.url),
      (r) => !r.body.load.shedding,
    );
    expect(caughtUp.body.load.shedding).toBe(false);
    const after = await start();
    expect(after.status).toBe(200);
    await readSse(after);
  }, 60_000);
});
