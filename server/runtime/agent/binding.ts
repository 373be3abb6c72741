/**
 * What an approval binds: the call's arguments, its tool's version and its agent's declared
 * version. A gated call runs only while all three are what the approver was shown; when any changed
 * before it runs (a deploy that changed this tool, an edited checkpoint) the call asks again. A
 * deploy that changes other tools of the agent re-asks nothing (docs/architecture.md, *Upgrades*).
 *
 * A binding names its scheme (`GateBinding`): pending calls written before 0.2.0 bound a digest of
 * every tool of the agent (`agent`), and are checked the way they were made.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { GateBinding } from "@/server/domain";
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

const digests = new WeakMap<ToolDefinition, { current: string; legacy: string }>();
const agentVersions = new WeakMap<AgentDefinition, string>();

/**
 * A tool's version as approvals and grants bind it: its declared `version`, or a digest of what an
 * approver's decision depends on — its name, kind, input schema and gate (its policy and what a
 * standing approval of it may bind: narrowing either voids earlier approvals and grants). Its
 * description is words for the model, not a change of what runs.
 */
export function toolVersion(tool: ToolDefinition): string {
  if ("version" in tool && tool.version) return tool.version;
  return digestsOf(tool).current;
}

/** A tool's version as 0.1.0 wrote it: its declared version, or a digest that counted its description. */
function legacyToolVersion(tool: ToolDefinition): string {
  if ("version" in tool && tool.version) return tool.version;
  return digestsOf(tool).legacy;
}

/** Every version a stored approval or grant may name `tool` by: today's, and the one 0.1.0 wrote. */
export function toolVersions(tool: ToolDefinition): string[] {
  return [...new Set([toolVersion(tool), legacyToolVersion(tool)])];
}

function digestsOf(tool: ToolDefinition): { current: string; legacy: string } {
  let known = digests.get(tool);
  if (!known) {
    const gate =
      "approval" in tool && tool.approval
        ? { policy: tool.approval.policy, ...(tool.approval.grantable ? { grantable: tool.approval.grantable.fields } : {}) }
        : null;
    const input = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" });
    const kind = tool.kind ?? "server";
    known = {
      current: `t2:${sha256(canonicalJson({ name: tool.name, kind, input, gate }))}`,
      legacy: sha256(canonicalJson({ name: tool.name, kind, description: tool.description, input, gate })),
    };
    digests.set(tool, known);
  }
  return known;
}

/** Before bindings were versioned: a digest of the agent's id and every tool's version. */
function legacyAgentVersion(agent: AgentDefinition): string {
  if (agent.version) return agent.version;
  let version = agentVersions.get(agent);
  if (!version) {
    const tools = [...agent.tools.values()].map((t) => [t.name, legacyToolVersion(t)]).sort(([a], [b]) => (a! < b! ? -1 : 1));
    version = sha256(canonicalJson({ id: agent.id, tools }));
    agentVersions.set(agent, version);
  }
  return version;
}

/** What an approval of `args` for `tool` of `agent` binds: the tool's own version and the agent's declared one. */
export function bindingOf(agent: AgentDefinition, tool: ToolDefinition, args: Record<string, unknown>): GateBinding {
  return { scheme: "tool", digest: sha256(canonicalJson({ args, tool: toolVersion(tool), agent: agent.version ?? agent.id })) };
}

/** True when `binding` (of either scheme) still binds this call: the approver saw what would run. */
export function stillBinds(
  binding: GateBinding | undefined,
  agent: AgentDefinition,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): boolean {
  switch (binding?.scheme) {
    case undefined:
      return false;
    case "tool":
      return binding.digest === bindingOf(agent, tool, args).digest;
    case "agent":
      return binding.digest === sha256(canonicalJson({ args, tool: legacyToolVersion(tool), agent: legacyAgentVersion(agent) }));
  }
}
