import type { RouterOutputs } from "@/components/trpc/types";

export type AgentSummary = RouterOutputs["agents"]["list"][number];

export interface Suggestion {
  /** What the chip says: the capability, by its title. */
  label: string;
  /** What the chip puts into the composer (not sent: the person edits and sends it). */
  text: string;
}

/**
 * Example requests in the concierge's phrase syntax (it matches phrases, it does not understand
 * free text); a model-driven agent understands them too. A tool without one gets a generic ask.
 */
const EXAMPLES: Record<string, string> = {
  send_email: "Send an email to bob@acme.test saying the report is ready",
  transfer_funds: "Transfer 25 EUR to ACME-4711",
  get_browser_timezone: "What is my time zone?",
  connect_api_key: "Connect my API key",
  deep_research: "Research coral reefs",
  calendar_today: "Check my calendar",
  ask_travel_agent: "Ask the travel agent to book a trip",
};

/**
 * Chips for an empty conversation with `agent`: "What can you do?" and one per capability it
 * declares, every one of them: an agent's tools are what it can do, and a missing chip hides one.
 * The chips wrap (a phone shows them all, a few lines high).
 */
export function suggestionsFor(agent: AgentSummary | undefined): Suggestion[] {
  const tools = agent?.tools ?? [];
  const chips = tools.map((tool) => ({ label: tool.title, text: EXAMPLES[tool.name] ?? `${tool.title}: ` }));
  return [{ label: "What can you do?", text: "What can you do?" }, ...chips];
}
