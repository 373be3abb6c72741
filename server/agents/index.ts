import { HarborError, type AgentRegistry, type RemoteAgentPort } from "@/server/runtime";
import { ASSISTANT_AGENT_ID, ASSISTANT_INSTRUCTIONS } from "./assistant/instructions";
import type { ModelSettings } from "./assistant/planner";
import { conciergePlanner } from "./concierge/planner";
import { conciergeTools } from "./concierge/tools";
import { agentRegistry, defineAgent } from "./define";

export const DEFAULT_AGENT_ID = "concierge";

export interface AgentOptions {
  researchMs?: number;
  stepMs?: number;
  /** The calendar resource `calendar_today` reads (with the owner's OAuth access token). */
  calendarUrl?: string;
  /** The remote travel agent (A2A); absent, `ask_travel_agent` fails with REMOTE_AGENT_UNAVAILABLE. */
  travelAgent?: RemoteAgentPort;
  /** An OpenAI-compatible model: with it, the `assistant` agent is served too. */
  model?: ModelSettings;
}

/** The travel agent when none is configured: every call says so. */
const unconfiguredTravelAgent: RemoteAgentPort = {
  url: "about:blank",
  name: async () => "Travel agent",
  send: async () => {
    throw new HarborError("REMOTE_AGENT_UNAVAILABLE", "No travel agent is configured on this server (HARBOR_TRAVEL_AGENT_URL).");
  },
  cancel: async () => {},
};

/** The agents this server offers; their tools store only through their tool context. */
export function createAgents(options: AgentOptions = {}): AgentRegistry {
  const tools = conciergeTools({
    researchMs: options.researchMs ?? 3_000,
    calendarUrl: options.calendarUrl,
    travelAgent: options.travelAgent ?? unconfiguredTravelAgent,
  });
  const concierge = defineAgent({
    id: DEFAULT_AGENT_ID,
    name: "Concierge",
    description: "Harbor's embedded demo agent: rule-based, no model, no network.",
    planner: conciergePlanner({ stepMs: options.stepMs }),
    tools,
  });
  const assistant = defineAgent({
    id: ASSISTANT_AGENT_ID,
    name: "Assistant",
    description: `A model-driven agent${options.model ? ` (${options.model.model})` : ""} with the concierge's tools, behind the same gates.`,
    model: { instructions: ASSISTANT_INSTRUCTIONS },
    tools,
  });
  return agentRegistry([concierge, assistant], options.model);
}
