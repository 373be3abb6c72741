/**
 * Harbor under load: 200 chats at once from four users (cookie and bearer alike), a scheduler that
 * can run only some of them at a time (the rest queue), and 20 subscribers following live runs
 * over tRPC `runs.events` — half of them cut off midway and reconnecting with `Last-Event-ID`.
 * Afterwards every stream ended (RUN_FINISHED), every run's event log is gap-free from seq 1 to a
 * terminal event, every follower saw exactly that log, and the server answered /api/health all along.
 */
import { randomUUID } from "node:crypto";
import { EventSchemas } from "@ag-ui/core/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInput, postRun, userMessage } from "../helpers/agui";
import { createToken, readSse, signInAll, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";
import { probeHealth } from "../helpers/health-probe";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

const CHATS = 200;
const FOLLOWERS = 20;
/** Runs executing at once on the instance: the other chats wait in the queue. */
const MAX_ACTIVE_RUNS = 40;
const COUNT_TO = 5;
const STEP_MS = 150;
/**
 * How long /api/health and /api/health/ready may take while the burst is served: what a balancer
 * with a short timeout accepts. They answer from memory, and the instance sheds new runs (503
 * OVERLOADED, Retry-After) rather than let its event loop fall that far behind.
 */
const HEALTH_BOUND_MS = 1_000;

interface Chat {
  threadId: string;
  auth: Auth;
  user: string;
  message: string;
}

interface LoggedEvent {
  seq: number;
  event: { type: string };
}

/** A run's whole log through `runs.timeline`, a page at a time. */
async function timeline(url: string, auth: Auth, runId: string): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  for (;;) {
    const page = await trpcQuery<LoggedEvent[]>(url, auth, "runs.timeline", { runId, afterSeq: events.at(-1)?.seq ?? 0 });
    if (!page.data) throw new Error(`runs.timeline ${runId}: ${JSON.stringify(page.error)}`);
    events.push(...page.data);
    if (page.data.length === 0 || events.at(-1)!.event.type === "run.completed" || events.at(-1)!.event.type === "run.failed") {
      return events;
    }
  }
}

/** Seqs 1..n without a gap or a repeat, the last one ending the run. */
function expectGapFree(events: readonly LoggedEvent[], what: string) {
  expect(
    events.map((e) => e.seq),
    what,
  ).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
  expect(["run.completed", "run.failed"], what).toContain(events.at(-1)?.event.type);
}

/** The logged events a `runs.events` stream carried (its `connected` and other control frames left out). */
function loggedOf(frames: readonly { data: string }[]): LoggedEvent[] {
  return frames.flatMap((f) => {
    if (!f.data.includes('"seq"')) return [];
    return [JSON.parse(f.data) as LoggedEvent];
  });
}

const ends = (frame: { data: string }) => frame.data.includes('"run.completed"') || frame.data.includes('"run.failed"');

describe.each(OWN_ENGINES)("200 chats and 20 followers at once on $name", ({ name }) => {
  let server: OwnServer;
  let users: { user: string; auths: Auth[] }[];

  beforeAll(async () => {
    server = await startOwnServer(name, "load", {
      HARBOR_STREAM_CHUNK_MS: "1",
      HARBOR_STEP_MS: String(STEP_MS),
      HARBOR_MAX_ACTIVE_RUNS: String(MAX_ACTIVE_RUNS),
    });
    const emails = ["alice@acme.test", "bob@acme.test", "carol@acme.test", "mallory@globex.test"];
    const cookies = await signInAll(server.url, emails);
    users = await Promise.all(
      emails.map(async (user, i) => {
        const cookie = cookies[i]!;
        return { user, auths: [{ cookie }, { bearer: (await createToken(server.url, cookie, "load")).token }] };
      }),
    );
    // Warm the paths the load takes (a fresh server compiles its route modules on first use).
    const warm = users[0]!.auths[1]!;
    const threadId = randomUUID();
    await readSse(await postRun(server.url, warm, runInput(threadId, [userMessage("hello")])));
    const [run] = (await trpcQuery<{ runId: string }[]>(server.url, warm, "runs.list")).data ?? [];
    await timeline(server.url, warm, run!.runId);
    await readSse(await trpcSubscribe(server.url, warm, "runs.events", { runId: run!.runId }));
  });

  afterAll(async () => {
    await server?.dispose();
  });

  it(`streams ${CHATS} concurrent chats to RUN_FINISHED, with gap-free logs, while ${FOLLOWERS} followers read along; health answers throughout`, async () => {
    const started = Date.now();
    // Every chat on its own thread, spread over the users and both ways of signing in. The first
    // FOLLOWERS of them count slowly, so there is something to follow live.
    const chats: Chat[] = Array.from({ length: CHATS }, (_, i) => {
      const { user, auths } = users[i % users.length]!;
      return {
        threadId: randomUUID(),
        auth: auths[Math.floor(i / users.length) % 2]!,
        user,
        message: i < FOLLOWERS ? `count slowly to ${COUNT_TO}` : i % 3 === 0 ? "what can you do" : "hello",
      };
    });

    // Health and readiness, probed all along from a process of their own: every answer 200, none slow.
    const probe = await probeHealth(server.url, ["/api/health", "/api/health/ready"]);

    // A chat the instance shed (503 OVERLOADED) is sent again after its Retry-After, as a client would.
    let shed = 0;
    const streams = Promise.all(
      chats.map(async (chat) => {
        for (;;) {
          const res = await postRun(server.url, chat.auth, runInput(chat.threadId, [userMessage(chat.message)]));
          if (res.status === 503) {
            const body = (await res.json()) as { error: { code: string } };
            expect(body.error.code).toBe("OVERLOADED");
            expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
            shed++;
            await new Promise((r) => setTimeout(r, 250));
            continue;
          }
          expect(res.status, `${chat.user}: ${chat.message}`).toBe(200);
          const frames = await readSse(res);
          return frames.map((f) => JSON.parse(f.data) as { type: string });
        }
      }),
    );

    // The followers: each finds its counting run, then follows it over runs.events; every other one
    // is cut off after a few events and comes back with Last-Event-ID, as EventSource would.
    const followers = Promise.all(
      chats.slice(0, FOLLOWERS).map(async (chat, i) => {
        const runId = await runIdOf(chat);
        const first = await readSse(await trpcSubscribe(server.url, chat.auth, "runs.events", { runId }), (f) =>
          i % 2 === 1 ? loggedOf([f]).some((e) => e.seq >= 3) : ends(f),
        );
        const seen = loggedOf(first);
        if (i % 2 === 1 && !seen.some((e) => ["run.completed", "run.failed"].includes(e.event.type))) {
          const lastEventId = String(seen.at(-1)!.seq);
          const rest = await readSse(await trpcSubscribe(server.url, chat.auth, "runs.events", { runId, lastEventId }), ends);
          seen.push(...loggedOf(rest));
        }
        return { runId, chat, seen };
      }),
    );

    const [results, followed] = await Promise.all([streams, followers]);
    const streamedMs = Date.now() - started;
    const checks = await probe.stop();

    for (const [i, events] of results.entries()) {
      const what = `${chats[i]!.user} "${chats[i]!.message}"`;
      expect(events[0]?.type, what).toBe("RUN_STARTED");
      expect(events.at(-1)?.type, what).toBe("RUN_FINISHED");
      for (const event of events) expect(EventSchemas.safeParse(event).success, `${what}: ${JSON.stringify(event)}`).toBe(true);
    }

    // Every run of every chat: completed, its log gap-free, ending in run.completed.
    const runOfThread = new Map<string, string>();
    for (const { auths } of users) {
      const runs = (await trpcQuery<{ runId: string; threadId: string }[]>(server.url, auths[0]!, "runs.list")).data ?? [];
      for (const run of runs) runOfThread.set(run.threadId, run.runId);
    }
    const runsChecked = await Promise.all(
      chats.map(async (chat) => {
        const runId = runOfThread.get(chat.threadId);
        expect(runId, `the run of ${chat.user}'s thread`).toBeDefined();
        const run = await trpcQuery<{ status: string }>(server.url, chat.auth, "runs.get", { runId });
        expect(run.data?.status, `${chat.user} ${runId}`).toBe("completed");
        const events = await timeline(server.url, chat.auth, runId!);
        expectGapFree(events, `${chat.user} ${runId}`);
        return { runId: runId!, events };
      }),
    );
    const logs = new Map(runsChecked.map((r) => [r.runId, r.events]));

    // Each follower saw exactly the run's log: from seq 1, nothing skipped or repeated, to its end.
    for (const { runId, seen } of followed) {
      expectGapFree(seen, `follower of ${runId}`);
      expect(seen.map((e) => e.seq)).toEqual(logs.get(runId)!.map((e) => e.seq));
      expect(seen.filter((e) => e.event.type === "text.started").length).toBeGreaterThanOrEqual(COUNT_TO);
    }

    const events = runsChecked.reduce((n, r) => n + r.events.length, 0);
    const sorted = checks.map((c) => c.ms).sort((a, b) => a - b);
    const quantile = (values: number[], q: number) => values[Math.min(values.length - 1, Math.floor(values.length * q))];
    console.log(
      `load on ${name}: ${CHATS} chats + ${FOLLOWERS} followers streamed in ${streamedMs} ms, ${events} events checked; ` +
        `${shed} shed and sent again; /api/health and /ready ${checks.length} checks, ` +
        `p50 ${quantile(sorted, 0.5)} ms, p99 ${quantile(sorted, 0.99)} ms, max ${sorted.at(-1)} ms`,
    );
    expect(checks.filter((c) => c.status !== 200)).toEqual([]);
    expect(checks.length).toBeGreaterThan(0);
    expect(sorted.at(-1)).toBeLessThan(HEALTH_BOUND_MS);
  }, 120_000);

  /**
   * The Harbor run behind a chat's thread, as its owner's runs.list shows it: one poll per caller
   * for all the chats waiting on it, so finding runs adds little load of its own.
   */
  const waiting = new Map<Auth, Map<string, (runId: string) => void>>();
  async function runIdOf(chat: Chat): Promise<string> {
    const found = new Promise<string>((resolve) => {
      const mine = waiting.get(chat.auth) ?? new Map<string, (runId: string) => void>();
      mine.set(chat.threadId, resolve);
      if (!waiting.has(chat.auth)) {
        waiting.set(chat.auth, mine);
        void poll(chat.auth, mine);
      }
    });
    return Promise.race([
      found,
      new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`no run on thread ${chat.threadId} showed up`)), 30_000)),
    ]);
  }

  async function poll(auth: Auth, mine: Map<string, (runId: string) => void>) {
    const deadline = Date.now() + 30_000;
    while (mine.size > 0 && Date.now() < deadline) {
      const runs = (await trpcQuery<{ runId: string; threadId: string }[]>(server.url, auth, "runs.list")).data ?? [];
      for (const run of runs) {
        mine.get(run.threadId)?.(run.runId);
        mine.delete(run.threadId);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
    waiting.delete(auth);
  }
});
