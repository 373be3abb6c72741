/**
 * A run's safe points: between two steps, and (for a cancel only) between two tool calls. The
 * steering that waited for one is applied there and recorded in the run's log.
 */
import { randomUUID } from "node:crypto";
import type { StoredInstruction } from "@/server/domain";
import type { RunState, TranscriptMessage } from "../agent";
import type { RunEvent, RunJournal } from "../log";
import type { DriverContext } from "./driver-context";
import type { SafePoint } from "../loop";

/** What the queued instructions did to the run's state, and whether one of them stops it. */
interface Applied {
  next: RunState;
  stop?: "cancel" | "pause";
  events: RunEvent[];
  said: TranscriptMessage[];
}

/** Applies the steering that waited for this safe point, recording each in the run's log. */
export async function safePoint(
  { deps, here }: DriverContext,
  state: RunState,
  journal: RunJournal,
  where: "step" | "tool",
): Promise<SafePoint> {
  let queued = deps.mailboxes.take(state.runId);
  if (where === "tool") {
    // Only a cancel here; the rest waits for the next planner step.
    for (const later of queued.filter((q) => q.instruction.type !== "CANCEL")) deps.mailboxes.post(state.runId, later);
    queued = queued.filter((q) => q.instruction.type === "CANCEL");
  }
  // Stopping: between two steps the run can go on from its state elsewhere (steering first, below).
  if (queued.length === 0) return where === "step" && here.handingBack ? { type: "hand_back", state } : { type: "continue", state };
  const { next, stop, events, said } = applyInstructions(state, queued);
  const alongside = said.length > 0 ? { messages: { threadId: state.threadId, rows: said } } : undefined;
  // Stopping or parking writes next anyway: the instructions ride with that write.
  if (stop) journal.defer(events, alongside);
  else await journal.append(events, { alongside });
  if (stop === "cancel") return { type: "cancel", state: next };
  if (stop === "pause") {
    return {
      type: "pause",
      state: next,
      request: { id: randomUUID(), kind: "operator", policy: "admins", message: "Paused by an operator" },
    };
  }
  return where === "step" && here.handingBack ? { type: "hand_back", state: next } : { type: "continue", state: next };
}

function applyInstructions(state: RunState, queued: readonly StoredInstruction[]): Applied {
  let next = state;
  let stop: Applied["stop"];
  const events: RunEvent[] = [];
  const said: TranscriptMessage[] = [];
  for (const { instruction, actorId } of queued) {
    switch (instruction.type) {
      case "INJECT_CONTEXT":
        next = { ...next, context: [...(next.context ?? []), instruction.context] };
        events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: instruction.context });
        break;
      case "REDIRECT":
        next = { ...next, goal: instruction.goal };
        events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: instruction.goal });
        break;
      case "USER_MESSAGE": {
        const message: TranscriptMessage = { id: randomUUID(), role: "user", content: instruction.message };
        said.push(message);
        next = { ...next, transcript: [...next.transcript, message] };
        events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: instruction.message });
        break;
      }
      case "PRIORITIZE":
        // Already in effect (the scheduler and the run's row); recorded in the run's log here.
        events.push({ type: "steer.applied", instruction: instruction.type, actorId, detail: `priority ${instruction.priority}` });
        break;
      case "CANCEL":
        stop = "cancel";
        next = { ...next, cancelledBy: queued.find((q) => q.instruction.type === "CANCEL")?.actorRole ?? "operator" };
        events.push({ type: "steer.applied", instruction: instruction.type, actorId });
        break;
      case "PAUSE":
        stop ??= "pause";
        events.push({ type: "steer.applied", instruction: instruction.type, actorId });
        break;
    }
  }
  return { next, stop, events, said };
}
