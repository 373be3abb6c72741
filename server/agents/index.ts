import type { AgentDefinition, AgentRegistry } from "@/server/runtime";
import { conciergePlanner } from "./concierge/planner";

const DEFAULT_AGENT_ID = "concierge";

const concierge: AgentDefinition = {
  id: DEFAULT_AGENT_ID,
  name: "Concierge",
  description: "Harbor's embedded demo agent: rule-based, no model, no network.",
  planner: conciergePlanner,
};

export const agents: AgentRegistry = new Map([[concierge.id, concierge]]);
