/**
 * Model budgets over AG-UI, with both client generations validating every event: near a budget a
 * run says so (CUSTOM budget.warning), past it the run ends RUN_ERROR BUDGET_EXCEEDED and the
 * scripted model server is not asked. Set by an admin over tRPC.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGUI_CLIENTS, customEvents, runError, runTurn, userMessage } from "../helpers/agui";
import { signInCast, trpcMutation, type Auth } from "../helpers/http";
import { startModelServer, type ModelServer } from "../helpers/model-server";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

describe.each(OWN_ENGINES)("model budgets over AG-UI on $name", ({ name }) => {
  let model: ModelServer;
  let server: OwnServer;
  let alice: Auth;
  let carol: Auth;

  beforeAll(async () => {
    // Each request reports 40 + 10 tokens.
    model = await startModelServer(() => ({ text: "Within budget.", usage: { prompt: 40, completion: 10 } }));
    server = await startOwnServer(name, "budgets", { HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted" });
    ({ alice, carol } = await signInCast(server.url));
  });
  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  it("warns near the user's daily budget, then refuses the next model request with BUDGET_EXCEEDED", async () => {
    const set = await trpcMutation(server.url, carol, "budgets.set", {
      tenantDaily: null,
      tenantMonthly: null,
      userDaily: 120,
      userMonthly: null,
    });
    expect(set.error).toBeUndefined();
    const turn = (client: (typeof AGUI_CLIENTS)[number], ends?: "RUN_ERROR") =>
      runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: randomUUID(),
        messages: [userMessage("hello")],
        agentId: "assistant",
        ends,
      });

    const [v1, v0] = AGUI_CLIENTS as [(typeof AGUI_CLIENTS)[number], (typeof AGUI_CLIENTS)[number]];
    expect(customEvents((await turn(v1)).events, "budget.warning")).toEqual([]); // 0 of 120
    expect(customEvents((await turn(v0)).events, "budget.warning")).toEqual([]); // 50 of 120
    const warned = await turn(v1); // 100 of 120: warned, and asked
    expect(customEvents(warned.events, "budget.warning")).toEqual([{ scope: "user", period: "day", used: 100, limit: 120 }]);
    const asked = model.requests.length;

    for (const client of AGUI_CLIENTS) {
      const refused = await turn(client, "RUN_ERROR");
      expect(runError(refused.events)).toMatchObject({ code: "BUDGET_EXCEEDED", message: expect.stringContaining("150 of 120") });
    }
    expect(model.requests.length).toBe(asked);
  }, 60_000);
});
