/**
 * The log & journal room: the live event bus, the store runs write their events through, and the
 * slots that bound how many live feeds a user holds. Every other room stands on it.
 */
import { appendRunEvents, type RunEventsEntry } from "@/server/db/queries/run-writes";
import { lastSeq } from "@/server/db/queries/runs";
import { EventBus, groupCommit, RunJournal, runFeed, runListFeed, SubscriptionSlots, type EventStore } from "../log";
import type { RuntimeDeps } from "./deps";

export function composeLog(deps: RuntimeDeps) {
  const bus = new EventBus();
  // Concurrent runs share their event writes (see group-commit.ts).
  const writeEvents = groupCommit((entries: readonly RunEventsEntry[]) => appendRunEvents(deps.db, entries));
  const store: EventStore = { insert: (runId, events, alongside) => writeEvents({ runId, events, alongside }) };
  const subscriptions = new SubscriptionSlots(deps.maxSubscriptionsPerUser ?? 20);
  return {
    bus,
    store,
    subscriptions,
    /** A journal continuing a run's log from its last stored event. */
    journalFor: async (runId: string) => new RunJournal(runId, store, bus, await lastSeq(deps.db, runId)),
    /** A run's logged events, then its live ones. */
    feed: runFeed(deps.db, bus, subscriptions),
    /** Which runs a reader may list just changed (the console's list). */
    listFeed: runListFeed(deps.db, bus, subscriptions),
  };
}

export type LogRoom = ReturnType<typeof composeLog>;
