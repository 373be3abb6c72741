/**
 * The concierge's rule-based planner: no model, no network. It maps the user's latest message
 * to a step so every Harbor capability can be shown from the chat box and driven by tests.
 */
import type { Planner, PlannerDecision, RunState } from "@/server/runtime";

/** What the concierge can do, one phrase per line, as its README table lists them. */
export const CAPABILITIES = [
  "send an email to <address> saying <text>",
  "transfer <amount> to <account>",
  "what is my time zone",
  "connect my api key",
  "research <topic>",
  "check my calendar",
  "ask the travel agent to book a trip",
  "count slowly to <n>",
] as const;

const GREETING = /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i;

export function capabilityList(): string {
  return `Here is what I can do:\n${CAPABILITIES.map((c) => `- ${c}`).join("\n")}`;
}

export function replyTo(text: string): string {
  if (GREETING.test(text)) return `Hello! I'm the Harbor concierge. ${capabilityList()}`;
  return `I can't help with that yet. ${capabilityList()}`;
}

export const conciergePlanner: Planner = {
  next(state: Readonly<RunState>): PlannerDecision {
    const last = state.transcript.at(-1);
    // Answer the user's latest turn once; anything else means the run is done.
    if (!last || last.role !== "user") return { type: "finish" };
    return { type: "say", text: replyTo(last.content) };
  },
};
