import type { Database } from "@/server/db";
import type { AgentDefinition, AgentRegistry } from "@/server/runtime";
import { conciergePlanner } from "./concierge/planner";
import { conciergeTools } from "./concierge/tools";

export const DEFAULT_AGENT_ID = "concierge";

/** The agents this server offers; their tools write through `db` and seal secrets with a key from `serverSecret`. */
export function createAgents(db: Database, serverSecret: string, options: { researchMs?: number; stepMs?: number } = {}): AgentRegistry {
  const concierge: AgentDefinition = {
    id: DEFAULT_AGENT_ID,
    name: "Concierge",
    description: "Harbor's embedded demo agent: rule-based, no model, no network.",
    planner: conciergePlanner({ stepMs: options.stepMs }),
    tools: conciergeTools(db, serverSecret, options.researchMs ?? 3_000),
  };
  return new Map([[concierge.id, concierge]]);
}
