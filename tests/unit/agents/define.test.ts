import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentRegistry, defineAgent, defineTool } from "@/server/agents/define";

const refund = defineTool({
  name: "refund_order",
  title: "Refund an order",
  description: "Refunds an order.",
  input: z.strictObject({ orderId: z.string().min(1), amount: z.number().positive() }),
  output: z.strictObject({ refunded: z.literal(true) }),
  approval: { policy: "approvers", describe: (a) => `Refund ${a.amount} on order ${a.orderId}`, ttlMs: 3_600_000 },
  run: async () => ({ refunded: true as const }),
});

const locale = defineTool({
  kind: "client",
  name: "browser_locale",
  description: "Reads the browser's language.",
  input: z.strictObject({}),
  output: z.strictObject({ locale: z.string() }),
});

describe("defining agents", () => {
  it("turns a tool's `run` into what the runtime executes, keeping its gate", async () => {
    expect(refund.kind).toBeUndefined();
    if (refund.kind !== undefined && refund.kind !== "server") throw new Error("a server tool");
    expect(refund.approval).toMatchObject({ policy: "approvers", ttlMs: 3_600_000 });
    expect(await refund.execute({ orderId: "o-1", amount: 5 }, {} as never)).toEqual({ refunded: true });
  });

  it("serves a model agent only when a model is configured; a planner agent always", () => {
    const support = defineAgent({
      id: "support",
      name: "Support",
      description: "d",
      tools: [refund, locale],
      model: { instructions: "Be kind." },
    });
    const echo = defineAgent({ id: "echo", name: "Echo", description: "d", tools: [], planner: { next: () => ({ type: "finish" }) } });
    expect([...agentRegistry([support, echo]).keys()]).toEqual(["echo"]);
    const withModel = agentRegistry([support, echo], { baseUrl: "http://127.0.0.1:9/v1", model: "m" });
    expect([...withModel.keys()]).toEqual(["support", "echo"]);
    expect([...withModel.get("support")!.tools.keys()]).toEqual(["refund_order", "browser_locale"]);
  });

  it("refuses names a model server would not take, and two tools or agents with one name", () => {
    const spaced = { kind: "client" as const, name: "has spaces", description: "d", input: z.strictObject({}), output: z.strictObject({}) };
    expect(() => defineTool(spaced)).toThrow(/letters, digits/);
    expect(() =>
      defineAgent({ id: "a", name: "A", description: "d", tools: [locale, locale], planner: { next: () => ({ type: "finish" }) } }),
    ).toThrow(/two tools named "browser_locale"/);
    const a = defineAgent({ id: "a", name: "A", description: "d", tools: [], planner: { next: () => ({ type: "finish" }) } });
    expect(() => agentRegistry([a, a])).toThrow(/Two agents/);
  });
});
