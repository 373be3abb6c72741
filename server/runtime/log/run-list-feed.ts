/**
 * The run lists' live feed (the console): which runs the reader may list just changed — started,
 * queued, paused, answered, steered, ended — so the list is asked again at once instead of on a
 * timer. It carries run ids and event types only, never what the events say. Runs executed by
 * another instance reach it when that instance's events are read here (a watched run); the list's
 * slow poll covers the rest.
 */
import type { Database } from "@/server/db";
import { runOwner } from "@/server/db/queries/runs";
import { hasRole, type Identity } from "../access";
import type { EventBus } from "./event-bus";
import type { RunEvent } from "./events";
import { LiveQueue } from "./live-queue";
import type { SubscriptionSlots } from "./subscriptions";

/** Events that change nothing a run list shows (streamed text, progress ticks). */
const QUIET = new Set<RunEvent["type"]>(["text.started", "text.delta", "tool.progress"]);

/** Owners remembered per run, at most this many (the oldest are forgotten first). */
const REMEMBERED = 5_000;

export interface RunListChange {
  runId: string;
  type: RunEvent["type"];
}

export function runListFeed(db: Database, bus: EventBus, slots: SubscriptionSlots) {
  const owners = new Map<string, Promise<{ tenantId: string; ownerId: string } | undefined>>();
  /** Whose run it is, looked up once per run while it is remembered. */
  function ownerOf(runId: string) {
    let owner = owners.get(runId);
    if (!owner) {
      owner = runOwner(db, runId).catch(() => undefined);
      owners.set(runId, owner);
      if (owners.size > REMEMBERED) owners.delete(owners.keys().next().value!);
    }
    return owner;
  }

  /** Changes of the runs `identity` may list (the tenant's for admins, one's own for members), until `signal` aborts. */
  function watch(identity: Identity, signal?: AbortSignal): AsyncGenerator<RunListChange> {
    // Taken at the call, so a refusal is an error of the call, not of the stream.
    const giveBack = slots.take(identity.userId, signal);
    const admin = hasRole(identity, "admin");
    const changes = new LiveQueue<RunListChange>();
    const unsubscribe = bus.subscribeAll(({ runId, event }) => {
      if (QUIET.has(event.type)) return;
      void ownerOf(runId).then((owner) => {
        if (!owner || owner.tenantId !== identity.tenantId) return;
        if (!admin && owner.ownerId !== identity.userId) return;
        changes.push({ runId, type: event.type });
      });
    });
    // A feed never read still lets go when its request ends.
    signal?.addEventListener("abort", unsubscribe, { once: true });
    return (async function* () {
      try {
        yield* changes.read(signal);
      } finally {
        unsubscribe();
        giveBack();
      }
    })();
  }

  return { watch };
}
