/**
 * What an approval binds: the call's arguments, its tool's version and its agent's version. A gated
 * call runs only while all three are what the approver was shown; when any changed before it runs
 * (a deploy while the run was parked, an edited checkpoint) the call asks again.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { AgentDefinition } from "./planner";
import type { ToolDefinition } from "./tools";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const toolVersions = new WeakMap<ToolDefinition, string>();
const agentVersions = new WeakMap<AgentDefinition, string>();

export function toolVersion(tool: ToolDefinition): string {
  if ("version" in tool && tool.version) return tool.version;
  let version = toolVersions.get(tool);
  if (!version) {
    // The gate's policy and what a standing approval of it may bind: narrowing either voids earlier
    // approvals and grants of the tool.
    const gate =
      "approval" in tool && tool.approval
        ? { policy: tool.approval.policy, ...(tool.approval.grantable ? { grantable: tool.approval.grantable.fields } : {}) }
        : null;
    version = sha256(
      canonicalJson({
        name: tool.name,
        kind: tool.kind ?? "server",
        description: tool.description,
        input: z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }),
        gate,
      }),
    );
    toolVersions.set(tool, version);
  }
  return version;
}

export function agentVersion(agent: AgentDefinition): string {
  if (agent.version) return agent.version;
  let version = agentVersions.get(agent);
  if (!version) {
    const tools = [...agent.tools.values()].map((t) => [t.name, toolVersion(t)]).sort(([a], [b]) => (a! < b! ? -1 : 1));
    version = sha256(canonicalJson({ id: agent.id, tools }));
    agentVersions.set(agent, version);
  }
  return version;
}

/** The digest an approval of `args` for `tool` of `agent` binds. */
export function bindingOf(agent: AgentDefinition, tool: ToolDefinition, args: Record<string, unknown>): string {
  return sha256(canonicalJson({ args, tool: toolVersion(tool), agent: agentVersion(agent) }));
}
