/**
 * A remote agent's card is fetched from the configured address, but it names the endpoint to call.
 * Harbor calls only endpoints on the configured origin: a card that points elsewhere is refused
 * (REMOTE_AGENT_FAILED, a plain sentence without addresses) and nothing is sent to the other site.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteAgent } from "@/server/a2a/remote-agent";
import { createAgents } from "@/server/agents";
import { listenOnLoopback } from "@/server/peers/listen";
import { startTravelAgent, type RunningTravelAgent } from "@/server/peers/travel-agent";
import { HarborError, type Identity, type LoggedEvent } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../helpers/backends";
import { drain, started, testRuntime } from "../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };

describe.each(testBackends())("a remote agent card that points elsewhere, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let foreign: Server;
  let foreignUrl: string;
  let foreignRequests = 0;
  let agent: RunningTravelAgent;

  beforeAll(async () => {
    // The other site: it answers anything, and counts what reaches it.
    foreign = createServer((_req, res) => {
      foreignRequests++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    foreignUrl = await listenOnLoopback(foreign, 0);
    agent = await startTravelAgent({ memberToken: "unused", cardUrl: foreignUrl });
  });
  afterAll(async () => {
    await agent?.close();
    await new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve()));
  });

  it("is refused with REMOTE_AGENT_FAILED and a sentence without addresses; the foreign endpoint is never called", async () => {
    const error: unknown = await remoteAgent(agent.url, { timeoutMs: 5_000 })
      .send({ text: "Book a trip", bearer: "a-member-token" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(HarborError.is(error)).toBe(true);
    const refusal = error as HarborError;
    expect(refusal.code).toBe("REMOTE_AGENT_FAILED");
    expect(refusal.message).toBe(
      "The remote agent's card names an endpoint on another site; Harbor calls only the address it was configured with.",
    );
    // The addresses are for the log.
    expect(refusal.details).toMatchObject({ url: agent.url, endpoints: [foreignUrl] });
    expect(foreignRequests).toBe(0);
  });

  it("fails the run that asked it (run.failed, no URL in the message) without calling the foreign endpoint", async () => {
    const runtime = testRuntime(database.db, {
      agents: createAgents({ travelAgent: remoteAgent(agent.url, { timeoutMs: 5_000 }) }),
    });
    try {
      const run = started(
        await runtime.startRun(alice, {
          agentId: "concierge",
          threadId: `card-origin-${backend.name}`,
          transportRunId: "t-card-origin",
          messages: [{ id: `m-card-origin-${backend.name}`, role: "user", content: "ask the travel agent to book a trip" }],
        }),
      );
      const events = (await drain(run.events)).map((e: LoggedEvent) => e.event);
      const last = events.at(-1);
      expect(last).toMatchObject({ type: "run.failed", code: "REMOTE_AGENT_FAILED" });
      expect(last?.type === "run.failed" ? last.message : "").not.toMatch(/https?:|127\.0\.0\.1|localhost/);
      expect(foreignRequests).toBe(0);
    } finally {
      runtime.close();
      await runtime.idle();
    }
  });
});
