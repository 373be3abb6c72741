import { describe, expect, it } from "vitest";
import { z } from "zod";
import { summarizeAgents } from "@/server/agents/catalog";
import { tool, type AgentDefinition, type Planner } from "@/server/runtime";

const neverPlans: Planner = {
  next: () => {
    throw new Error("the catalog never plans");
  },
};

const pay = tool({
  name: "pay_invoice",
  title: "Pay an invoice",
  description: "Pays an invoice once an approver agrees.",
  input: z.strictObject({ invoice: z.string() }),
  output: z.strictObject({ paid: z.literal(true) }),
  approval: { policy: "approvers", describe: () => "Pay it" },
  execute: async () => ({ paid: true as const }),
});
const look = tool({
  name: "look_up_weather",
  description: "Reads the weather.",
  input: z.strictObject({}),
  output: z.strictObject({ sky: z.string() }),
  execute: async () => ({ sky: "blue" }),
});
const locate = tool({
  kind: "client",
  name: "get_location",
  description: "Asks the browser where it is.",
  input: z.strictObject({}),
  output: z.strictObject({ city: z.string() }),
});

describe("the agent catalog (agents.list)", () => {
  it("describes a new agent's tools — title, kind, gate — without the UI knowing them", () => {
    const agent: AgentDefinition = {
      id: "bookkeeper",
      name: "Bookkeeper",
      description: "Pays the bills.",
      planner: neverPlans,
      tools: new Map([pay, look, locate].map((t) => [t.name, t])),
    };
    expect(summarizeAgents(new Map([[agent.id, agent]]))).toEqual([
      {
        id: "bookkeeper",
        name: "Bookkeeper",
        description: "Pays the bills.",
        tools: [
          { name: "pay_invoice", title: "Pay an invoice", kind: "server", gated: true, approval: "approvers" },
          // No title declared: its name, readably.
          { name: "look_up_weather", title: "Look up weather", kind: "server", gated: false },
          { name: "get_location", title: "Get location", kind: "client", gated: false },
        ],
      },
    ]);
  });
});
