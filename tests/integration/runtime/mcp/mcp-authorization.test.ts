/**
 * An MCP server that wants authorization: its 401 names its protected-resource metadata, whose
 * authorization server is one of Harbor's OAuth providers (the real embedded identity provider).
 * The call parks on the tool-side OAuth pause; the owner consents; the broker keeps the token
 * sealed like any other; the call is tried again with it — and later calls use it at once.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { CALENDAR_PROVIDER } from "@/server/agents/concierge/tools";
import { DEMO_PASSWORD, DEMO_USERS } from "@/server/db/seed";
import { log } from "@/server/log";
import { mcpConnector } from "@/server/mcp/connector";
import { oauthBroker, type OAuthBroker } from "@/server/oauth/broker";
import { beginConsent, completeConsent } from "@/server/oauth/callback";
import { oauthClient } from "@/server/oauth/client";
import { startIdentityProvider, type RunningIdentityProvider } from "@/server/peers/identity-provider";
import { startMcpPeer, type RunningMcpPeer } from "@/server/peers/mcp-server";
import type { LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { consentAt } from "../../../helpers/consent";
import { startModelServer, type ModelServer } from "../../../helpers/model-server";
import { ALICE, CAROL, drain, started, TEST_SECRET, testRuntime } from "../../../helpers/runtime";

const CALLBACK = "http://127.0.0.1:9/api/oauth/callback/calendar";
const CLIENT = { clientId: "harbor", clientSecret: "mcp-auth-test-client-secret" };

let counter = 0;
const request = (threadId: string, text?: string): StartRunRequest => ({
  agentId: "assistant",
  threadId,
  transportRunId: `mcp-auth-${++counter}`,
  messages: text ? [{ id: `mcp-auth-m-${counter}`, role: "user", content: text }] : [],
});

describe.each(testBackends())("an MCP server that wants authorization, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let idp: RunningIdentityProvider;
  let peer: RunningMcpPeer;
  let model: ModelServer;
  let broker: OAuthBroker;
  let runtime: Runtime;
  const seenByServer: string[] = [];

  beforeAll(async () => {
    idp = await startIdentityProvider({
      client: { ...CLIENT, redirectUris: [CALLBACK] },
      accounts: DEMO_USERS.map((u) => ({ id: u.id, email: u.email, name: u.name, password: DEMO_PASSWORD })),
    });
    peer = await startMcpPeer({ identityProvider: idp, onToken: (token) => seenByServer.push(token) });
    model = await startModelServer();
    broker = oauthBroker({
      db: database.db,
      serverSecret: TEST_SECRET,
      providers: new Map([
        [
          CALENDAR_PROVIDER,
          {
            id: CALENDAR_PROVIDER,
            name: "demo calendar",
            issuer: idp.issuer,
            client: oauthClient({ issuer: idp.issuer, ...CLIENT, redirectUri: CALLBACK, scopes: ["calendar.read"] }),
          },
        ],
      ]),
      connectUrl: (id) => `http://127.0.0.1:9/api/oauth/connect/${id}`,
      log: log.child({ test: true }),
    });
    runtime = testRuntime(database.db, {
      agents: createAgents({ model: { baseUrl: model.baseUrl, model: "scripted", maxRetries: 0, timeoutMs: 10_000 } }),
      credentials: broker,
      oauthTtlMs: 60_000,
      mcp: { allowLocal: true, connector: mcpConnector({ allowLocal: true, timeoutMs: 5_000, holdMs: 60_000 }) },
    });
    await runtime.start();
    await runtime.mcpServers.create(CAROL, { name: "calendar", url: peer.url });
    model.script((req) => {
      const last = req.messages.at(-1)!;
      return last.role === "tool" ? { text: `Tool said: ${last.content}` } : { toolCalls: [{ name: "calendar__list_events", args: {} }] };
    });
  });
  afterAll(async () => {
    runtime?.close();
    await runtime?.idle();
    await peer?.close();
    await idp?.close();
    await model?.close();
  });

  it("parks on the OAuth pause of the provider the server names, and goes on with the owner's token once they consent", async () => {
    const first = (await drain(started(await runtime.startRun(ALICE, request("mcp-auth", "what is on today?"))).events)).map(
      (e) => e.event,
    );
    const last = first.at(-1);
    if (last?.type !== "run.paused") throw new Error(`expected a consent pause, got ${JSON.stringify(last)}`);
    const consent = last.interrupts[0]!;
    expect(consent).toMatchObject({
      kind: "oauth",
      reason: "oauth",
      policy: "owner",
      detail: { provider: CALENDAR_PROVIDER, scopes: ["calendar.read"], mcp: { server: "calendar", tool: "list_events" } },
    });
    expect(consent.message).toContain("calendar can run list_events");

    const begun = await beginConsent({ runtime, broker }, ALICE, consent.id);
    const callbackUrl = await consentAt(
      begun.providerUrl,
      { email: "alice@acme.test", password: DEMO_PASSWORD },
      { callbackPrefix: CALLBACK },
    );
    await completeConsent({ runtime, broker }, ALICE, CALENDAR_PROVIDER, callbackUrl, () => begun.nonce);

    const rest: LoggedEvent["event"][] = [];
    for await (const logged of await runtime.watchRun(ALICE, consent.runId, 0)) {
      rest.push(logged.event);
      if (logged.event.type === "run.completed" || logged.event.type === "run.failed") break;
    }
    const result = rest.find((e) => e.type === "tool.result");
    expect(result).toMatchObject({ content: expect.stringContaining("Lunch with Alice's mentor") });
    expect(rest.at(-1)?.type).toBe("run.completed");

    // The token is the broker's, sealed like any other: in no event, and never in clear in the database.
    const token = seenByServer.at(-1)!;
    expect(token).toBeTruthy();
    const stored = await queryRows<{ sealed: string }>(database.db, sql`select sealed from credentials where user_id = 'user-alice'`);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.sealed).not.toContain(token);
    expect(JSON.stringify([first, rest])).not.toContain(token);

    // The next call uses the token at once: no pause.
    const again = (await drain(started(await runtime.startRun(ALICE, request("mcp-auth-2", "and now?"))).events)).map((e) => e.event);
    expect(again.at(-1)?.type).toBe("run.completed");
    expect(again.find((e) => e.type === "tool.result")).toMatchObject({ content: expect.stringContaining("Team standup") });
  });
});
