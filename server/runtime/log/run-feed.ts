/**
 * A run's events for readers outside the request that drives it (a chat following a run resumed by
 * someone else, the console): what the log already holds after `afterSeq`, then live events, until
 * the run ends. Resumable: a reader that reconnects passes the last seq it saw.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Database } from "@/server/db";
import { findRun, pageOfRunEvents } from "@/server/db/queries/runs";
import { isTerminalStatus } from "@/server/domain";
import { LiveQueue } from "./live-queue";
import { authorizeConversationRead } from "../access";
import { NotFoundError } from "../errors";
import type { EventBus } from "./event-bus";
import type { LoggedEvent, RunEvent } from "./events";
import type { Identity } from "../access";
import type { SubscriptionSlots } from "./subscriptions";

/** Events read from the log at once: few enough that a page is sent before it grows old in the heap. */
const LOG_PAGE = 100;
/** How long one reader of a log may hold the process before other requests get a turn, in ms. */
const TURN_MS = 10;

const endsRun = (event: RunEvent) => event.type === "run.completed" || event.type === "run.failed";

export function runFeed(db: Database, bus: EventBus, slots: SubscriptionSlots) {
  /** Owners follow their runs; admins every run of their tenant; other tenants learn nothing. */
  async function authorize(identity: Identity, runId: string) {
    const run = await findRun(db, runId);
    if (!run) throw new NotFoundError("Run");
    await authorizeConversationRead(db, identity, { ...run, type: "run", id: run.id, what: "Run" });
    return run;
  }

  /**
   * Authorizes first — so a refusal is an error of the call, not of the stream — then returns the
   * run's events after `afterSeq` until it ends.
   */
  async function watch(identity: Identity, runId: string, afterSeq: number, signal?: AbortSignal): Promise<AsyncGenerator<LoggedEvent>> {
    const run = await authorize(identity, runId);
    const giveBack = slots.take(identity.userId, signal);
    return follow(runId, afterSeq, isTerminalStatus(run.status), giveBack, signal);
  }

  async function* follow(
    runId: string,
    afterSeq: number,
    ended: boolean,
    giveBack: () => void,
    signal?: AbortSignal,
  ): AsyncGenerator<LoggedEvent> {
    const live = new LiveQueue<LoggedEvent>();
    // Subscribed before reading the log, so nothing falls between the two; seqs remove the overlap.
    const subscription = bus.subscribe(runId, (event) => live.push(event));
    try {
      let last = afterSeq;
      for await (const event of catchUp(runId, last)) {
        yield event;
        last = event.seq;
        if (endsRun(event.event)) return;
      }
      // A run that had ended when asked has nothing more to say, even if the reader saw its end already.
      if (ended) return;
      // What follows comes live: from this instance, or read from the log when another one writes it.
      subscription.advance(last);
      for await (const next of live.read(signal)) {
        if (next.seq <= last) continue;
        // Streamed text published before this reader subscribed, stored since: read it first.
        if (next.seq > last + 1) {
          for await (const event of catchUp(runId, last)) {
            if (event.seq >= next.seq) break;
            yield event;
            last = event.seq;
          }
        }
        yield next;
        last = next.seq;
        if (endsRun(next.event)) return;
      }
    } finally {
      subscription.unsubscribe();
      giveBack();
    }
  }

  /**
   * The run's events after `afterSeq` that exist now: the stored log a page at a time (a long run
   * never sits in memory whole), then streamed text published but not stored yet. Text stored
   * between the two reads is not held unstored any more: the log is read again from there.
   */
  async function* catchUp(runId: string, afterSeq: number): AsyncGenerator<LoggedEvent> {
    let last = afterSeq;
    let turn = performance.now();
    let reread = false;
    for (;;) {
      const page = await pageOfRunEvents(db, runId, last, LOG_PAGE);
      for (const unread of page) {
        const row = unread();
        yield { runId, seq: row.seq, at: row.createdAt.getTime(), event: row.data };
        last = row.seq;
        // Reading a long log, and sending it, happens in microtasks (the embedded database answers
        // without leaving them): other requests get their turn every few milliseconds.
        if (performance.now() - turn > TURN_MS) {
          await nextTurn();
          turn = performance.now();
        }
      }
      if (page.length === LOG_PAGE) continue;
      const ahead = bus.ahead(runId, last);
      // Stored since the page was read: one more read finds it (a read that finds nothing more ends it).
      if (ahead.length > 0 && ahead[0]!.seq !== last + 1 && (page.length > 0 || !reread)) {
        reread = true;
        continue;
      }
      yield* ahead;
      return;
    }
  }

  return { watch };
}
