/**
 * What clients may know about the agents: names, and each tool's title, kind and gate — never a
 * planner, a schema or a handler. The UI renders tools from this, so a new agent needs no UI change.
 */
import type { ResolverPolicy, ToolKind } from "@/server/domain";
import type { AgentRegistry, ToolDefinition, ToolRegistry } from "@/server/runtime";

export interface ToolSummary {
  name: string;
  title: string;
  kind: ToolKind;
  /** A person must approve each call before it runs. */
  gated: boolean;
  /** Who approves a gated call. */
  approval?: ResolverPolicy;
}

export interface AgentSummary {
  id: string;
  name: string;
  description?: string;
  tools: ToolSummary[];
}

/** `send_email` reads "Send email" when its tool declares no title. */
function titleFromName(name: string): string {
  const words = name.replaceAll("_", " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function summarizeTool(tool: ToolDefinition): ToolSummary {
  const kind = tool.kind ?? "server";
  const approval = tool.kind === undefined || tool.kind === "server" || tool.kind === "mcp" ? tool.approval?.policy : undefined;
  return {
    name: tool.name,
    title: tool.title ?? titleFromName(tool.name),
    kind,
    gated: approval !== undefined,
    ...(approval ? { approval } : {}),
  };
}

/** The agents, each with its own tools and — when it takes them — the tenant's MCP tools (`connected`). */
export function summarizeAgents(agents: AgentRegistry, connected: ToolRegistry = new Map()): AgentSummary[] {
  return [...agents.values()].map((agent) => ({
    id: agent.id,
    name: agent.name,
    ...(agent.description ? { description: agent.description } : {}),
    tools: [...agent.tools.values(), ...(agent.connectedTools ? [...connected.values()].filter((t) => !agent.tools.has(t.name)) : [])].map(
      summarizeTool,
    ),
  }));
}
