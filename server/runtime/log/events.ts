/**
 * Runtime events are part of the vocabulary (`server/domain/events.ts`); this module adds what
 * only the runtime needs to know about them.
 */
import type { RunEvent } from "@/server/domain";

export type { GateDeadline, InterruptView, LoggedEvent, RunEvent } from "@/server/domain";

/** Events after which a transport run has nothing more to say (the run itself may go on later). */
export function endsTransport(event: RunEvent): boolean {
  return event.type === "run.completed" || event.type === "run.failed" || event.type === "run.paused";
}
