/**
 * Silent streams stay busy for proxies: with HARBOR_SSE_PING_MS at 200 ms, an AG-UI run waiting in
 * the queue (behind another run of its user, HARBOR_MAX_ACTIVE_RUNS_PER_USER=1) sends `: ping`
 * comments between its whole event frames, which both AG-UI clients skip while every event still
 * validates; a quiet `interactions.events` feed gets tRPC's `ping` events.
 */
import { randomUUID } from "node:crypto";
import type { BaseEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGUI_CLIENTS, assertValidStream, customEvents, postRun, runInput, runTurn, streamedText, userMessage } from "../helpers/agui";
import { readSse, signInCast, trpcSubscribe, type Auth } from "../helpers/http";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

const PING_MS = 200;
const PING = ": ping";

/** A stream's frames in order, comments kept (a `: ping` is a frame of its own). */
function framesOf(raw: string): string[] {
  return raw.split("\n\n").filter((frame) => frame.length > 0);
}

/** The events of the data frames; fails on a frame that is neither a ping nor one whole event. */
function eventsOf(frames: readonly string[]): BaseEvent[] {
  return frames
    .filter((frame) => frame !== PING)
    .map((frame) => {
      expect(frame, "a frame is a ping or one data line").toMatch(/^data: [^\n]+$/);
      return JSON.parse(frame.slice("data: ".length)) as BaseEvent;
    });
}

/** The pings between the queued notice and the run's next event: the silent wait. */
function pingsWhileQueued(frames: readonly string[]): number {
  const queuedAt = frames.findIndex((frame) => frame.includes('"run.queued"'));
  expect(queuedAt, "the run was queued").toBeGreaterThan(-1);
  const after = frames.slice(queuedAt + 1);
  const nextEvent = after.findIndex((frame) => frame !== PING);
  return nextEvent === -1 ? after.length : nextEvent;
}

/** A fetch that hands the client its response and keeps a copy of the raw body. */
function recordingFetch() {
  let raw: Promise<string> | undefined;
  const record = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    const [mine, theirs] = res.body!.tee();
    raw = new Response(mine).text();
    return new Response(theirs, { status: res.status, headers: res.headers });
  };
  return {
    fetch: record,
    raw: () => raw ?? Promise.reject(new Error("nothing was fetched")),
  };
}

describe.each(OWN_ENGINES)("pings on silent streams on $name", ({ name }) => {
  let server: OwnServer;
  let alice: Auth;

  beforeAll(async () => {
    server = await startOwnServer(name, "sse-pings", {
      HARBOR_SSE_PING_MS: String(PING_MS),
      HARBOR_MAX_ACTIVE_RUNS_PER_USER: "1",
      HARBOR_STEP_MS: "400",
    });
    ({ alice } = await signInCast(server.url));
  });

  afterAll(async () => {
    await server?.dispose();
  });

  /** Starts one of alice's runs that holds her only slot for about two seconds; resolves once it runs. */
  async function slotTaken(): Promise<{ finished: Promise<string> }> {
    const res = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("count slowly to 5")]));
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("TEXT_MESSAGE_CONTENT")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the blocking run ended before it ran: ${seen}`);
      seen += value;
    }
    const finished = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return seen;
        seen += value;
      }
    })();
    return { finished };
  }

  it("sends `: ping` comments while a run waits silently in the queue, each between whole event frames", async () => {
    const blocker = await slotTaken();
    const res = await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")]));
    expect(res.status).toBe(200);
    const frames = framesOf(await res.text());
    // The blocking run's own silences between numbers were pinged too.
    expect(framesOf(await blocker.finished)).toContain(PING);

    expect(pingsWhileQueued(frames)).toBeGreaterThanOrEqual(2);
    const events = eventsOf(frames);
    assertValidStream(events);
    for (const client of AGUI_CLIENTS) await client.verify(events);
    expect(streamedText(events)).not.toBe("");
  });

  it.each(AGUI_CLIENTS)("@ag-ui/client $version skips the pings of a queued run and validates every event", async (client) => {
    const blocker = await slotTaken();
    const recorded = recordingFetch();
    // runTurn checks each event against the AG-UI schema, the end, and the client's verifyEvents.
    const turn = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId: randomUUID(),
      messages: [userMessage("hello")],
      fetch: recorded.fetch,
    });
    await blocker.finished;
    const frames = framesOf(await recorded.raw());

    expect(pingsWhileQueued(frames)).toBeGreaterThanOrEqual(2);
    // The client saw exactly the data frames: no ping became an event, none was lost.
    expect(turn.events.map((e) => e.type)).toEqual(eventsOf(frames).map((e) => e.type));
    expect(customEvents(turn.events, "run.queued")).toHaveLength(1);
    expect(turn.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("sends tRPC's ping events on a quiet interactions.events feed, and tells the client when to give up on it", async () => {
    const abort = new AbortController();
    const started = Date.now();
    const res = await trpcSubscribe(server.url, alice, "interactions.events", {}, abort.signal);
    expect(res.status).toBe(200);
    let pings = 0;
    const frames = await readSse(res, (frame) => frame.event === "ping" && ++pings === 3);
    abort.abort();

    expect(frames[0]).toEqual({ event: "connected", data: JSON.stringify({ reconnectAfterInactivityMs: 3 * PING_MS }) });
    expect(frames.slice(1)).toEqual([
      { event: "ping", data: "" },
      { event: "ping", data: "" },
      { event: "ping", data: "" },
    ]);
    // One ping per silent interval, not a flood.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2.5 * PING_MS);
  });
});
