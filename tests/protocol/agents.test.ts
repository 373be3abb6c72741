import { describe, expect, inject, it } from "vitest";
import { signIn, trpcQuery } from "../helpers/http";

interface AgentSummary {
  id: string;
  name: string;
  tools: { name: string; title: string; kind: string; gated: boolean; approval?: string }[];
}

describe.each(inject("servers"))("agents.list on the $name server", (server) => {
  it("refuses callers without identity", async () => {
    expect((await trpcQuery(server.url, null, "agents.list")).status).toBe(401);
  });

  it("describes the concierge's tools with their titles, kinds and gates", async () => {
    const alice = { cookie: await signIn(server.url, "alice@acme.test") };
    const answer = await trpcQuery<AgentSummary[]>(server.url, alice, "agents.list");
    const concierge = answer.data?.find((a) => a.id === "concierge");
    expect(concierge?.name).toBe("Concierge");
    const byName = new Map(concierge?.tools.map((t) => [t.name, t]));
    expect(byName.get("send_email")).toEqual({
      name: "send_email",
      title: "Send an email",
      kind: "server",
      gated: true,
      approval: "owner",
    });
    expect(byName.get("transfer_funds")).toMatchObject({ title: "Transfer funds", gated: true, approval: "approvers" });
    expect(byName.get("calendar_today")).toMatchObject({ title: "Today's calendar", kind: "server", gated: false });
    expect(byName.get("get_browser_timezone")).toMatchObject({ kind: "client", gated: false });
    expect(byName.get("deep_research")).toMatchObject({ kind: "external", gated: false });
    expect(byName.get("connect_api_key")).toMatchObject({ kind: "private_input", gated: false });
    expect(byName.get("ask_travel_agent")).toMatchObject({ title: "Travel agent", kind: "remote_agent", gated: false });
  });
});
