/** The gate an MCP tool's calls pass: its annotations' default, or the one its tenant's admins chose. */
import { defaultMcpGate, type McpGate, type McpGateChoice, type McpListedTool } from "@/server/domain";
import type { McpToolDefinition } from "../agent";

/** The gate in force for `tool`, and whether an admin chose it. */
export function gateOf(tool: McpListedTool, chosen: McpGateChoice | undefined): McpGateChoice & { chosen: boolean } {
  return chosen ? { ...chosen, chosen: true } : { gate: defaultMcpGate(tool.annotations), chosen: false };
}

const POLICY = { owner: "owner", approvers: "approvers" } as const satisfies Record<Exclude<McpGate, "none">, string>;

/** The approval a gate asks for before a call runs (none for `none`), worded from the call itself. */
export function approvalOf(server: string, tool: McpListedTool, choice: McpGateChoice): McpToolDefinition["approval"] {
  if (choice.gate === "none") return undefined;
  const title = tool.annotations.title ?? tool.title ?? tool.name;
  return {
    policy: POLICY[choice.gate],
    describe: (args) => `${server}: ${title}${describeArgs(args)}`,
    ...(choice.gate === "approvers" && choice.quorum && choice.quorum > 1 ? { quorum: choice.quorum } : {}),
    // A standing approval covers later calls with the very same arguments.
    grantable: {
      fields: Object.fromEntries(Object.keys(inputProperties(tool)).map((field) => [field, "equal" as const])),
      describe: (bounds) =>
        `${server}: ${title}${describeArgs(Object.fromEntries(Object.entries(bounds).map(([k, b]) => [k, "equals" in b ? b.equals : `≤ ${b.atMost}`])))}`,
    },
  };
}

function inputProperties(tool: McpListedTool): Record<string, unknown> {
  const properties = tool.inputSchema.properties;
  return typeof properties === "object" && properties !== null && !Array.isArray(properties) ? (properties as Record<string, unknown>) : {};
}

/** `(path: "/tmp/x", force: true)`: the arguments as people read them, cut short. */
function describeArgs(args: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(args).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  if (parts.length === 0) return "";
  const text = parts.join(", ");
  return ` (${text.length > 300 ? `${text.slice(0, 299)}…` : text})`;
}
