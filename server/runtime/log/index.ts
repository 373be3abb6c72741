/**
 * The face of runtime/log: a run's events, stored before they are published (a model's streamed
 * text: published, then stored soon), and the feeds that read them. See README.md.
 */
export { type GateDeadline, type InterruptView, type LoggedEvent, type RunEvent } from "./events";
export { EventBus } from "./event-bus";
export { type EventStore, RunJournal, STREAMED_AHEAD_MAX, toStoredRows } from "./journal";
export { batched, groupCommit } from "./group-commit";
export { LiveQueue } from "./live-queue";
export { runFeed } from "./run-feed";
export { runListFeed, type RunListChange } from "./run-list-feed";
export { SubscriptionSlots } from "./subscriptions";
